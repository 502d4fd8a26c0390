import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { SuiClient } from '@mysten/sui/client';
import { getTransaction } from '@shop/chain';
import type { RetryPolicy } from '@shop/retry';
import { assertClaimedBy, DomainError } from '@shop/domain';
import { FairRedisLock } from '@shop/redis';
import { Aggregates } from '@shop/commands';
import { currentCorrelationId } from '@shop/logging';
import { PAYMENT_SETTINGS } from './payment-settings';
import type { PaymentSettings } from './payment-settings';
import { VerificationResult } from './payment-schemas';
import { PaymentDelivery, searchServiceActor } from './payment-delivery';
import { ProcessedTransactions } from './processed-transactions';
import { verificationAnswer } from './verification-result';

export const SUI_CLIENT = Symbol('SUI_CLIENT');
export const VERIFICATION_LOCKS = Symbol('VERIFICATION_LOCKS');

/** The spec's verification lock. A verification ends well within it: chain read ≤ 16 s, forward ≤ 22 s. */
export const LOCK_TTL_MS = 60_000;
export const verificationLock = (txHash: string) => `lock:tx_verify:${txHash}`;
/**
 * A request waits its turn behind the verifications of the digest that came before it (the lock
 * serves them in arrival order), each one bounded by the lock's TTL, so a stranger who keeps
 * verifying someone's digest delays the payer by the attempts already in flight and no more. It
 * answers 409 only after waiting a whole TTL.
 */
const LOCK_WAIT_MS = LOCK_TTL_MS;
const CHAIN_READ_RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 1_000 };

export class VerifyPaymentCommand extends Command<VerificationResult> {
  constructor(
    readonly txHash: string,
    readonly userId: string,
  ) {
    super();
  }
}

/**
 * One digest at a time (a Redis lock served in arrival order), the event history as the truth: a digest already recorded
 * is never read from the chain again, and a verified one is only ever forwarded again until the
 * backend acknowledges it.
 */
@CommandHandler(VerifyPaymentCommand)
export class VerifyPaymentHandler implements ICommandHandler<VerifyPaymentCommand> {
  constructor(
    @Inject(PAYMENT_SETTINGS) private readonly settings: PaymentSettings,
    private readonly aggregates: Aggregates,
    @Inject(VERIFICATION_LOCKS) private readonly locks: FairRedisLock,
    private readonly processed: ProcessedTransactions,
    @Inject(SUI_CLIENT) private readonly sui: SuiClient,
    private readonly delivery: PaymentDelivery,
  ) {}

  async execute({ txHash, userId }: VerifyPaymentCommand): Promise<VerificationResult> {
    if (!this.settings.enabled) {
      throw new DomainError(
        'unavailable',
        'VERIFICATION_DISABLED',
        `Payment verification is disabled: ${this.settings.reason}`,
      );
    }
    const { terms } = this.settings;
    if (await this.processed.has(txHash)) {
      const { state } = await this.aggregates.payment.state(txHash);
      if (state.status === 'SUCCESS') {
        assertClaimedBy(state, userId);
        return verificationAnswer(txHash, state);
      }
    }

    const lease = await this.locks.acquire(verificationLock(txHash), LOCK_TTL_MS, { waitMs: LOCK_WAIT_MS });
    if (!lease) {
      throw new DomainError(
        'conflict',
        'VERIFICATION_IN_PROGRESS',
        'This transaction is being verified by another request; retry shortly',
        { 'retry-after': '5' },
      );
    }
    try {
      const { state: recorded } = await this.aggregates.payment.state(txHash);
      const transaction =
        recorded.status === 'NEW'
          ? { transaction: await getTransaction(this.sui, txHash, CHAIN_READ_RETRY) }
          : {};
      const { state: recordedNow } = await this.aggregates.payment.execute(
        txHash,
        { type: 'VerifyPayment', paymentId: randomUUID(), userId, terms, ...transaction },
        { actor: searchServiceActor, correlationId: currentCorrelationId() },
      );
      const state = await this.delivery.deliver(txHash, recordedNow);
      return verificationAnswer(txHash, state);
    } finally {
      await lease.release();
    }
  }
}
