import { setTimeout as sleep } from 'node:timers/promises';
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { GatewayConfig } from '@shop/config';
import { mistToDecimal, parseMist, sameStructType } from '@shop/chain';
import { systemActor } from '@shop/contracts';
import {
  assertDepositClaimant,
  depositInProgress,
  depositInvalidAmount,
  depositInvalidCoinType,
  DepositState,
  DomainError,
} from '@shop/domain';
import { Aggregates } from '@shop/commands';
import { ProviderClient } from '@shop/provider';
import { currentCorrelationId } from '@shop/logging';
import { CONFIG, PROVIDER } from '../infrastructure/tokens';
import { CoinDecimals } from './coin-decimals';

export interface DepositResult {
  success: true;
  txDigest: string;
  usdcAmount: number;
  usdmxAmount: string;
}

export class CreditDepositCommand extends Command<DepositResult> {
  constructor(
    readonly input: {
      userId: string;
      txDigest: string;
      /** The address the payment came from, kept with the deposit. */
      payerAddress: string;
      /** The address that must be the user's own Sui wallet, and what to say when it is not. */
      userWallet: { address: string; mismatch: string };
      amountMist: string;
      coinType: string;
      source: 'search-service' | 'verify';
    },
  ) {
    super();
  }
}

/**
 * How long a request waits for the crediting process to finish its claim. Shorter than the
 * search service's 5 s per forward attempt, so it hears "in progress" rather than nothing.
 */
const OUTCOME_WAIT_MS = 3_000;
const OUTCOME_POLL_MS = 25;

/**
 * Claims a verified on-chain payment for the user, once per digest, and waits a little for the
 * crediting process (a reaction on the claim) to fund the EVM wallet. The claim is the only thing
 * the request does to the deposit: if it dies after it, the reaction and the reconciler still
 * credit it. Amounts convert with the accepted coin's decimals from the chain, 1 unit = 1 USDMX.
 */
@CommandHandler(CreditDepositCommand)
export class CreditDepositHandler implements ICommandHandler<CreditDepositCommand> {
  constructor(
    private readonly aggregates: Aggregates,
    @Inject(PROVIDER) private readonly provider: ProviderClient | null,
    @Inject(CONFIG) private readonly config: GatewayConfig,
    private readonly decimals: CoinDecimals,
  ) {}

  async execute({ input }: CreditDepositCommand): Promise<DepositResult> {
    const accepted = this.config.CHAIN_COIN_TYPE;
    if (!accepted || !this.provider) {
      throw new DomainError(
        'unavailable',
        'SERVICE_UNAVAILABLE',
        `Deposits are not configured: ${accepted ? 'PROVIDER_API_URL' : 'CHAIN_COIN_TYPE'} is not set`,
      );
    }
    const { state: user } = await this.aggregates.user.state(input.userId);
    assertDepositClaimant(user, input.userWallet.address, input.userWallet.mismatch);
    if (!sameStructType(input.coinType, accepted)) throw depositInvalidCoinType();
    let amount: bigint;
    try {
      amount = parseMist(input.amountMist);
    } catch {
      throw depositInvalidAmount('amount must be a whole number of MIST');
    }
    if (amount <= 0n) throw depositInvalidAmount('amount must be positive');
    const usdcAmount = mistToDecimal(amount, await this.decimals.of(accepted));

    const claim = await this.aggregates.deposit.execute(
      input.txDigest,
      {
        type: 'ClaimDeposit',
        userId: input.userId,
        payerAddress: input.payerAddress,
        evmAddress: user.evmAddress,
        amountMist: amount.toString(),
        usdcAmount,
        coinType: accepted,
        source: input.source,
        now: Date.now(),
      },
      { actor: { ...systemActor, id: input.source }, correlationId: currentCorrelationId() },
    );
    const { state: outcome, version } = await this.outcomeOf(input.txDigest, claim.state.attempt);
    await this.aggregates.deposit.waitReadable(version, input.txDigest);
    if (outcome.status === 'failed') {
      throw new DomainError('internal', 'INTERNAL_ERROR', `Faucet failed: ${outcome.failureReason ?? ''}`);
    }
    if (outcome.status !== 'credited') throw depositInProgress();
    return {
      success: true,
      txDigest: input.txDigest,
      usdcAmount: Number(outcome.usdmxAmount),
      usdmxAmount: outcome.usdmxAmount ?? usdcAmount,
    };
  }

  private async outcomeOf(
    txDigest: string,
    attempt: number,
  ): Promise<{ state: DepositState; version: number }> {
    const deadline = Date.now() + OUTCOME_WAIT_MS;
    for (;;) {
      const current = await this.aggregates.deposit.state(txDigest);
      const { state } = current;
      if (state.status !== 'claimed' || state.attempt !== attempt || Date.now() >= deadline) return current;
      await sleep(OUTCOME_POLL_MS);
    }
  }
}
