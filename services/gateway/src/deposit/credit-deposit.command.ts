import { Inject } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { GatewayConfig } from '@shop/config';
import { mistToDecimal, parseMist, sameAddress } from '@shop/chain';
import { DepositEvent, RecordedEvent, systemActor } from '@shop/contracts';
import { depositDecider, DomainError, userDecider } from '@shop/domain';
import { DeciderRunner } from '@shop/eventstore';
import { CommandExecutor } from '@shop/projections';
import { ProviderClient } from '@shop/provider';
import { CONFIG, DECIDER_RUNNER, PROVIDER } from '../infrastructure/tokens';

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

const badRequest = (message: string) => new DomainError('invalid', 'BAD_REQUEST', message);

/**
 * Credits a verified on-chain USDC payment to the user's EVM wallet, at most once per digest:
 * the digest is claimed first (sequence 0 of its subject), then the wallet is funded under an
 * idempotency key of digest and attempt, then the outcome is recorded. A failed funding
 * leaves the digest retryable. 1 USDC = 1,000,000 MIST = 1 USDMX, in exact decimals.
 */
@CommandHandler(CreditDepositCommand)
export class CreditDepositHandler implements ICommandHandler<CreditDepositCommand> {
  constructor(
    private readonly executor: CommandExecutor,
    @Inject(DECIDER_RUNNER) private readonly runner: DeciderRunner,
    @Inject(PROVIDER) private readonly provider: ProviderClient | null,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  async execute({ input }: CreditDepositCommand): Promise<DepositResult> {
    const { state: user } = await this.runner.state(userDecider, 'user', input.userId);
    if (!user.registered || user.walletStatus !== 'active' || !user.suiAddress || !user.evmAddress) {
      throw badRequest('Wallet not provisioned');
    }
    if (this.config.CHAIN_USDC_COIN_TYPE && input.coinType !== this.config.CHAIN_USDC_COIN_TYPE) {
      throw badRequest('Invalid coin type');
    }
    if (!sameAddress(input.userWallet.address, user.suiAddress)) throw badRequest(input.userWallet.mismatch);
    if (!this.provider)
      throw new DomainError('unavailable', 'SERVICE_UNAVAILABLE', 'The payment provider is not configured');
    let amount: bigint;
    try {
      amount = parseMist(input.amountMist);
    } catch {
      throw badRequest('amount must be a whole number of MIST');
    }
    if (amount <= 0n) throw badRequest('amount must be positive');
    const usdcAmount = mistToDecimal(amount);

    const actor = { ...systemActor, id: input.source };
    const claim = await this.executor.execute(
      depositDecider,
      'deposit',
      input.txDigest,
      {
        type: 'ClaimDeposit',
        userId: input.userId,
        payerAddress: input.payerAddress,
        evmAddress: user.evmAddress,
        amountMist: amount.toString(),
        usdcAmount,
        coinType: input.coinType,
        source: input.source,
        now: Date.now(),
      },
      { actor },
    );
    const attempt = (claim.events[0] as RecordedEvent<Extract<DepositEvent, { type: 'DepositClaimed' }>>).data
      .attempt;
    try {
      await this.provider.fundWallet(
        user.evmAddress,
        { amount: Number(usdcAmount), token: 'usdxm', chain: this.config.PROVIDER_CHAIN },
        { idempotencyKey: `deposit:${input.txDigest}:${attempt}` },
      );
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      await this.executor.execute(
        depositDecider,
        'deposit',
        input.txDigest,
        { type: 'RecordDepositFailure', attempt, reason: detail },
        { actor },
      );
      throw new DomainError('internal', 'INTERNAL_ERROR', `Faucet failed: ${detail}`);
    }
    await this.executor.execute(
      depositDecider,
      'deposit',
      input.txDigest,
      { type: 'RecordDepositCredit', attempt, usdmxAmount: usdcAmount, evmAddress: user.evmAddress },
      { actor },
    );
    return {
      success: true,
      txDigest: input.txDigest,
      usdcAmount: Number(usdcAmount),
      usdmxAmount: usdcAmount,
    };
  }
}
