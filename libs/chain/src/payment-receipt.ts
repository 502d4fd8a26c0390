import { z } from 'zod';
import { sameStructType } from './addresses';
import { cartContract } from './contract-interface';
import { ChainError } from './errors';
import { assertSchemaMatchesFields, moveAddress, moveString, moveU64 } from './move-values';
import type { ChainEvent, ChainTransaction } from './transactions';

export interface PaymentReceipt {
  eventId: ChainEvent['id'];
  nonce: string;
  /** In the coin's base units (MIST). */
  amount: bigint;
  receiver: string;
  payer: string;
  coinType: string;
}

const receiptShape = {
  nonce: moveString,
  amount: moveU64,
  receiver: moveAddress,
  payer: moveAddress,
  coin_type: moveString,
};
assertSchemaMatchesFields(
  'event PaymentReceipt',
  receiptShape,
  cartContract.payment.events.PaymentReceipt.fields,
);
const receiptSchema = z.object(receiptShape);

/**
 * The PaymentReceipt events of a successful transaction that were emitted by the payment package
 * `paymentPackageId`. A struct of the same name from any other package is ignored: anyone can
 * publish a module that emits a look-alike receipt.
 */
export function paymentReceiptsOf(tx: ChainTransaction, paymentPackageId: string): PaymentReceipt[] {
  if (tx.status !== 'success') return [];
  const receiptType = `${paymentPackageId}::${cartContract.payment.module}::PaymentReceipt`;
  return tx.events
    .filter((event) => sameStructType(event.type, receiptType))
    .map((event) => {
      const parsed = receiptSchema.safeParse(event.parsedJson);
      if (!parsed.success) {
        throw new ChainError(`PaymentReceipt in ${tx.digest} does not match the contract`, {
          cause: parsed.error,
        });
      }
      const { coin_type: coinType, ...receipt } = parsed.data;
      return { eventId: event.id, coinType, ...receipt };
    });
}
