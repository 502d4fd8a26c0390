import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Headers, HttpCode, Inject, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { z } from 'zod';
import type { GatewayConfig } from '@shop/config';
import { DomainError } from '@shop/domain';
import { ApiRoute, ValidBody, ValidParams } from '@shop/http';
import { CONFIG } from '../infrastructure/tokens';
import { CreditDepositCommand, DepositResult } from './credit-deposit.command';
import { depositResultSchema } from './deposit-result.schema';

const params = z.object({ userId: z.uuid(), address: z.string().regex(/^0x[0-9a-fA-F]{1,64}$/) });
const body = z.object({
  amount: z
    .string()
    .regex(/^\d{1,30}$/)
    .describe('verified amount in MIST'),
  transactionHash: z.string().regex(/^[A-Za-z0-9]{1,200}$/),
  network: z.string().min(1).max(50),
  currency: z.string().min(1).max(300).describe('coin type'),
});

/** Hashing first gives equal lengths, so the comparison takes the same time whatever was sent. */
function sameSecret(given: string | undefined, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given ?? ''), digest(expected)) && given !== undefined;
}

/** The search service's confirmation of a verified payment (spec: search-payment-service, Verify). */
@Controller('api/deposit')
export class DepositConfirmController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post(':userId/:address/confirm')
  @HttpCode(200)
  @ApiRoute({
    summary: "Credit a payment the search service verified to the user's EVM wallet (once per transaction)",
    tags: ['deposit'],
    access: 'public',
    params,
    body,
    responses: { 200: { description: 'Credited', schema: depositResultSchema } },
    errors: [
      {
        status: 400,
        code: 'VALIDATION_ERROR',
        description: 'malformed parameters or body (the search service delivers it again later)',
      },
      {
        status: 400,
        code: 'WALLET_NOT_PROVISIONED',
        description:
          "Wallet not provisioned: the user's wallets are not provisioned yet (the search service delivers it again later)",
      },
      { status: 400, code: 'USER_NOT_FOUND', description: 'Wallet not provisioned: no such user (final)' },
      {
        status: 400,
        code: 'INVALID_COIN_TYPE',
        description: 'Invalid coin type: not the accepted coin (final)',
      },
      {
        status: 400,
        code: 'WALLET_MISMATCH',
        description: "the payer is not the user's own wallet (final)",
      },
      {
        status: 400,
        code: 'INVALID_AMOUNT',
        description: 'the amount is not a positive whole number of MIST (final)',
      },
      { status: 401, code: 'UNAUTHORIZED', description: 'X-Webhook-Secret missing or wrong' },
      {
        status: 409,
        code: 'DEPOSIT_ALREADY_CREDITED',
        description: 'Deposit already processed: the transaction was credited',
      },
      {
        status: 409,
        code: 'DEPOSIT_IN_PROGRESS',
        description: 'the transaction is claimed and being credited; it will be, ask again later',
      },
      {
        status: 409,
        code: 'CONFLICT',
        description: 'Deposit already processed: claimed by another user (final)',
      },
      {
        status: 500,
        code: 'INTERNAL_ERROR',
        description:
          'Faucet failed: <detail>, the provider refused the funding (the transaction stays retryable)',
      },
      {
        status: 502,
        code: 'UPSTREAM_ERROR',
        description: "the chain could not be reached for the coin's decimals",
      },
      {
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        description: 'CHAIN_COIN_TYPE, CHAIN_RPC_URL or the provider is not configured',
      },
      { status: 503, code: 'WEBHOOK_NOT_CONFIGURED', description: 'DEPOSIT_WEBHOOK_SECRET not set' },
    ],
  })
  confirm(
    @Headers('x-webhook-secret') secret: string | undefined,
    @ValidParams() route: z.infer<typeof params>,
    @ValidBody() confirmation: z.infer<typeof body>,
  ): Promise<DepositResult> {
    if (!this.config.DEPOSIT_WEBHOOK_SECRET) {
      throw new DomainError(
        'unavailable',
        'WEBHOOK_NOT_CONFIGURED',
        'Deposit confirmations are not configured',
      );
    }
    if (!sameSecret(secret, this.config.DEPOSIT_WEBHOOK_SECRET)) {
      throw new DomainError('unauthorized', 'UNAUTHORIZED', 'Invalid webhook secret');
    }
    return this.commands.execute(
      new CreditDepositCommand({
        userId: route.userId,
        txDigest: confirmation.transactionHash,
        payerAddress: route.address,
        // A verified payment can only credit the wallet that paid it.
        userWallet: { address: route.address, mismatch: "The paying address is not this user's wallet" },
        amountMist: confirmation.amount,
        coinType: confirmation.currency,
        source: 'search-service',
      }),
    );
  }
}
