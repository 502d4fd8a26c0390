import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { SuiClient } from '@mysten/sui/client';
import { getTransaction, type RetryPolicy } from '@shop/chain';
import { assertClaimedBy, awaitsConfirmation, DomainError, paymentDecider, PaymentState } from '@shop/domain';
import { DeciderRunner } from '@shop/eventstore';
import { RedisLock } from '@shop/redis';
import { CommandExecutor } from '@shop/projections';
import { DECIDER_RUNNER } from '../infrastructure/tokens';
import { DepositForwarder } from './deposit-forwarder';
import { PAYMENT_SETTINGS } from './payment-settings';
import type { PaymentSettings } from './payment-settings';
import { VerificationResult } from './payment-schemas';
import { ProcessedTransactions } from './processed-transactions';
import { verificationAnswer } from './verification-result';

const searchServiceActor = { kind: 'system' as const, id: 'search-service' };

export const SUI_CLIENT = Symbol('SUI_CLIENT');
export const VERIFICATION_LOCKS = Symbol('VERIFICATION_LOCKS');

/** The spec's verification lock. A verification ends well within it: chain read ≤ 16 s, forward ≤ 22 s. */
const LOCK_TTL_MS = 60_000;
/** A concurrent duplicate waits this long for the first request's outcome, then gets 409. */
const LOCK_WAIT_MS = 5_000;
const CHAIN_READ_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 200, maxDelayMs: 1_000 };

export class VerifyPaymentCommand extends Command<VerificationResult> {
  constructor(
    readonly txHash: string,
    readonly userId: string,
  ) {
    super();
  }
}

/**
 * One digest at a time (Redis lock), the event history as the truth: a digest already recorded
 * is never read from the chain again, and a verified one is only ever forwarded again until the
 * backend acknowledges it.
 */
@CommandHandler(VerifyPaymentCommand)
export class VerifyPaymentHandler implements ICommandHandler<VerifyPaymentCommand> {
  constructor(
    @Inject(PAYMENT_SETTINGS) private readonly settings: PaymentSettings,
    @Inject(DECIDER_RUNNER) private readonly runner: DeciderRunner,
    private readonly executor: CommandExecutor,
    @Inject(VERIFICATION_LOCKS) private readonly locks: RedisLock,
    private readonly processed: ProcessedTransactions,
    @Inject(SUI_CLIENT) private readonly sui: SuiClient,
    private readonly forwarder: DepositForwarder,
  ) {}

  async execute({ txHash, userId }: VerifyPaymentCommand): Promise<VerificationResult> {
    if (!this.settings.enabled) {
      throw new DomainError(
        'unavailable',
        'VERIFICATION_DISABLED',
        `Payment verification is disabled: ${this.settings.reason}`,
      );
    }
    const { terms, webhookSecret } = this.settings;
    if (await this.processed.has(txHash)) {
      const { state } = await this.runner.state(paymentDecider, 'payment', txHash);
      if (state.status === 'SUCCESS') {
        assertClaimedBy(state, userId);
        return verificationAnswer(txHash, state);
      }
    }

    const lease = await this.locks.acquire(`lock:tx_verify:${txHash}`, LOCK_TTL_MS, { waitMs: LOCK_WAIT_MS });
    if (!lease) {
      throw new DomainError(
        'conflict',
        'VERIFICATION_IN_PROGRESS',
        'This transaction is being verified by another request; retry shortly',
        { 'retry-after': '5' },
      );
    }
    try {
      const { state: recorded } = await this.runner.state(paymentDecider, 'payment', txHash);
      const transaction =
        recorded.status === 'NEW'
          ? { transaction: await getTransaction(this.sui, txHash, CHAIN_READ_RETRY) }
          : {};
      let { state } = await this.executor.execute(
        paymentDecider,
        'payment',
        txHash,
        { type: 'VerifyPayment', paymentId: randomUUID(), userId, terms, ...transaction },
        { actor: searchServiceActor },
      );
      if (awaitsConfirmation(state)) {
        const delivery = await this.forwarder.forward(depositConfirmation(txHash, state), webhookSecret);
        ({ state } = await this.executor.execute(
          paymentDecider,
          'payment',
          txHash,
          { type: 'RecordConfirmationDelivery', delivery },
          { actor: searchServiceActor },
        ));
      }
      if (state.status === 'SUCCESS') await this.processed.mark(txHash);
      return verificationAnswer(txHash, state);
    } finally {
      await lease.release();
    }
  }
}

function depositConfirmation(txHash: string, state: PaymentState) {
  const { userId, payer, amount, network, coinType } = state;
  if (!userId || !payer || !amount || !network || !coinType) {
    throw new Error(`verified payment ${txHash} is missing what its confirmation needs`);
  }
  return { userId, payer, amount, transactionHash: txHash, network, currency: coinType };
}
