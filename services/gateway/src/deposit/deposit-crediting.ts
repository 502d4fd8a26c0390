import { Inject, Injectable } from '@nestjs/common';
import type { GatewayConfig } from '@shop/config';
import { depositFundingKey, fundingOutcome } from '@shop/domain';
import { Aggregates } from '@shop/commands';
import { ProviderClient } from '@shop/provider';
import { currentCorrelationId } from '@shop/logging';
import type { LockCheck } from '@shop/reactions';
import { providerAnswerOf } from '../infrastructure/provider-answer';
import { CONFIG, PROVIDER } from '../infrastructure/tokens';

const crediting = { kind: 'system' as const, id: 'deposit-crediting' };

/**
 * The funding step of a claimed deposit: fund the user's EVM wallet under the digest's one
 * idempotency key, then record the outcome: any 2xx is a credit (with what came back when it
 * could not be read), only a refusal a failure. Safe to run any number of times, from any
 * process, concurrently: the provider answers a repeated key with the first result and the
 * decider records one credit. An ambiguous outcome is thrown, to be retried with the same key.
 * The caller's lock (the reaction's or the reconciler's) is checked right before the call, so a
 * process that lost it leaves the call to the new holder instead of making it alongside.
 */
@Injectable()
export class DepositCrediting {
  constructor(
    private readonly aggregates: Aggregates,
    @Inject(PROVIDER) private readonly provider: ProviderClient | null,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  async settle(txDigest: string, lock: LockCheck): Promise<void> {
    const { state } = await this.aggregates.deposit.state(txDigest);
    if (state.status !== 'claimed') return;
    const { attempt, evmAddress, usdcAmount } = state;
    if (!evmAddress || !usdcAmount) throw new Error(`deposit ${txDigest} was claimed without its amount`);
    if (!this.provider) throw new Error('the payment provider is not configured (PROVIDER_API_URL)');
    let providerAnswer: string | undefined;
    lock.assertHeld();
    try {
      await this.provider.fundWallet(
        evmAddress,
        { amount: Number(usdcAmount), token: 'usdxm', chain: this.config.PROVIDER_CHAIN },
        { idempotencyKey: depositFundingKey(txDigest) },
      );
    } catch (error) {
      const outcome = fundingOutcome(providerAnswerOf(error));
      if (outcome === 'unknown') throw error;
      const reason = error instanceof Error ? error.message : String(error);
      if (outcome === 'refused') {
        await this.aggregates.deposit.execute(
          txDigest,
          { type: 'RecordDepositFailure', attempt, reason },
          {
            actor: crediting,
            correlationId: currentCorrelationId(),
            commandId: `deposit-failure:${txDigest}:${attempt}`,
          },
        );
        return;
      }
      providerAnswer = reason;
    }
    await this.aggregates.deposit.execute(
      txDigest,
      { type: 'RecordDepositCredit', attempt, usdmxAmount: usdcAmount, evmAddress, providerAnswer },
      { actor: crediting, correlationId: currentCorrelationId(), commandId: `deposit-credit:${txDigest}` },
    );
  }
}
