import { DynamicModule, Module } from '@nestjs/common';
import { createSuiClient } from '@shop/chain';
import type { SearchConfig } from '@shop/config';
import type { Logger } from '@shop/logging';
import { FairRedisLock, RateLimiter, type Redis } from '@shop/redis';
import { LOGGER, REDIS } from '@shop/service-kit';
import { PAYMENT_VERIFY_RATE_LIMITER, PaymentVerifyRateLimitGuard } from '../http/rate-limit.guard';
import { DepositForwarder } from './deposit-forwarder';
import { GetPaymentRecordHandler } from './get-payment-record.query';
import { PaymentController } from './payment.controller';
import { PaymentDelivery } from './payment-delivery';
import { PaymentReconciler } from './payment-reconciler';
import { PAYMENT_SETTINGS, paymentSettings } from './payment-settings';
import { ProcessedTransactions } from './processed-transactions';
import { SUI_CLIENT, VERIFICATION_LOCKS, VerifyPaymentHandler } from './verify-payment.command';

/** A hung node must not hold the verification lock: 3 tries of at most 5 s each. */
const CHAIN_REQUEST_TIMEOUT_MS = 5_000;

@Module({})
export class PaymentModule {
  static register(config: SearchConfig): DynamicModule {
    return {
      module: PaymentModule,
      controllers: [PaymentController],
      providers: [
        { provide: PAYMENT_SETTINGS, useValue: paymentSettings(config) },
        {
          provide: SUI_CLIENT,
          useFactory: () =>
            createSuiClient({ url: config.CHAIN_RPC_URL, requestTimeoutMs: CHAIN_REQUEST_TIMEOUT_MS }),
        },
        {
          provide: VERIFICATION_LOCKS,
          inject: [REDIS],
          useFactory: (redis: Redis) => new FairRedisLock(redis),
        },
        {
          provide: PAYMENT_VERIFY_RATE_LIMITER,
          inject: [REDIS, LOGGER],
          useFactory: (redis: Redis, logger: Logger) =>
            new RateLimiter(redis, 'payment-verify', config.PAYMENT_VERIFY_RATE_LIMIT_RPM, 60_000, (error) =>
              logger.warn({ err: error }, 'Redis unavailable: payment verification rate limit not enforced'),
            ),
        },
        PaymentVerifyRateLimitGuard,
        {
          provide: ProcessedTransactions,
          inject: [REDIS, LOGGER],
          useFactory: (redis: Redis, logger: Logger) =>
            new ProcessedTransactions(redis, (error) =>
              logger.warn({ err: error }, 'Redis unavailable: processed-hash marks not used'),
            ),
        },
        {
          provide: DepositForwarder,
          useFactory: () => new DepositForwarder({ backendUrl: config.BACKEND_URL }),
        },
        PaymentDelivery,
        PaymentReconciler,
        VerifyPaymentHandler,
        GetPaymentRecordHandler,
      ],
    };
  }
}
