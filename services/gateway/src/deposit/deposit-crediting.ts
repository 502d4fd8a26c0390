import { Inject, Injectable } from '@nestjs/common';
import type { GatewayConfig } from '@shop/config';
import { depositFundingKey } from '@shop/domain';
import { Aggregates } from '@shop/commands';
import { ProviderClient, ProviderError } from '@shop/provider';
import { currentCorrelationId } from '@shop/logging';
import { CONFIG, PROVIDER } from '../infrastructure/tokens';

const crediting = { kind: 'system' as const, id: 'deposit-crediting' };

/**
 * An answer that proves the funding did not happen and will not happen if asked again the same
 * way. A timeout, a lost answer or an overloaded provider prove nothing: the call may have
 * funded the wallet, so it is only ever repeated under the same key.
 */
function refusedForGood(error: unknown): error is ProviderError {
  return error instanceof ProviderError && error.kind !== 'timeout' && !error.transient;
}

/**
 * The funding step of a claimed deposit: fund the user's EVM wallet under the digest's one
 * idempotency key, then record the outcome. Safe to run any number of times, from any process,
 * concurrently: the provider answers a repeated key with the first result and the decider records
 * one credit. An ambiguous outcome is thrown, to be retried with the same key.
 */
@Injectable()
export class DepositCrediting {
  constructor(
    private readonly aggregates: Aggregates,
    @Inject(PROVIDER) private readonly provider: ProviderClient | null,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  async settle(txDigest: string): Promise<void> {
    const { state } = await this.aggregates.deposit.state(txDigest);
    if (state.status !== 'claimed') return;
    const { attempt, evmAddress, usdcAmount } = state;
    if (!evmAddress || !usdcAmount) throw new Error(`deposit ${txDigest} was claimed without its amount`);
    if (!this.provider) throw new Error('the payment provider is not configured (PROVIDER_API_URL)');
    try {
      await this.provider.fundWallet(
        evmAddress,
        { amount: Number(usdcAmount), token: 'usdxm', chain: this.config.PROVIDER_CHAIN },
        { idempotencyKey: depositFundingKey(txDigest) },
      );
    } catch (error) {
      if (!refusedForGood(error)) throw error;
      await this.aggregates.deposit.execute(
        txDigest,
        { type: 'RecordDepositFailure', attempt, reason: error.message },
        {
          actor: crediting,
          correlationId: currentCorrelationId(),
          commandId: `deposit-failure:${txDigest}:${attempt}`,
        },
      );
      return;
    }
    await this.aggregates.deposit.execute(
      txDigest,
      { type: 'RecordDepositCredit', attempt, usdmxAmount: usdcAmount, evmAddress },
      { actor: crediting, correlationId: currentCorrelationId(), commandId: `deposit-credit:${txDigest}` },
    );
  }
}
