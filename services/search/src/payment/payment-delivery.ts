import { Inject, Injectable } from '@nestjs/common';
import { awaitsConfirmation, PaymentState } from '@shop/domain';
import { Aggregates } from '@shop/commands';
import { currentCorrelationId } from '@shop/logging';
import { DepositForwarder } from './deposit-forwarder';
import { PAYMENT_SETTINGS } from './payment-settings';
import type { PaymentSettings } from './payment-settings';
import { ProcessedTransactions } from './processed-transactions';

export const searchServiceActor = { kind: 'system' as const, id: 'search-service' };

/**
 * Delivers the deposit confirmation of a verified payment and records what the backend said:
 * acknowledged (SUCCESS), refused for the claiming user (FAILED, digest released), or not yet
 * (still PENDING, delivered again later). Run under the digest's verification lock.
 */
@Injectable()
export class PaymentDelivery {
  constructor(
    @Inject(PAYMENT_SETTINGS) private readonly settings: PaymentSettings,
    private readonly aggregates: Aggregates,
    private readonly forwarder: DepositForwarder,
    private readonly processed: ProcessedTransactions,
  ) {}

  async deliver(txHash: string, state: PaymentState): Promise<PaymentState> {
    if (!this.settings.enabled || !awaitsConfirmation(state)) return state;
    const delivery = await this.forwarder.forward(
      depositConfirmation(txHash, state),
      this.settings.webhookSecret,
    );
    const { state: next } = await this.aggregates.payment.execute(
      txHash,
      { type: 'RecordConfirmationDelivery', delivery },
      { actor: searchServiceActor, correlationId: currentCorrelationId() },
    );
    if (next.status === 'SUCCESS') await this.processed.mark(txHash);
    return next;
  }
}

function depositConfirmation(txHash: string, state: PaymentState) {
  const { userId, payer, amount, network, coinType } = state;
  if (!userId || !payer || !amount || !network || !coinType) {
    throw new Error(`verified payment ${txHash} is missing what its confirmation needs`);
  }
  return { userId, payer, amount, transactionHash: txHash, network, currency: coinType };
}
