import { z } from 'zod';
import { sameStructType } from './addresses';
import { cartContract } from './contract-interface';
import { assertSchemaMatchesFields, moveAddress, moveString, moveU64 } from './move-values';
import type { ChainEvent, ChainTransaction } from './transactions';

export interface PaymentReceipt {
  eventId: ChainEvent['id'];
  nonce: string;
  /** In the coin's base units (MIST). */
  amount: bigint;
  receiver: string;
  coinType: string;
}

/**
 * The fields the spec gives a receipt (nonce, amount, receiver, and the coin type), and nothing
 * more: the contract's other fields are not relied on, so a receipt without them still counts.
 */
const receiptShape = {
  nonce: moveString,
  amount: moveU64,
  receiver: moveAddress,
  coin_type: moveString,
};
assertSchemaMatchesFields(
  'event PaymentReceipt',
  receiptShape,
  cartContract.payment.events.PaymentReceipt.fields.filter((field) => field.name in receiptShape),
);
const receiptSchema = z.object(receiptShape);

/**
 * The PaymentReceipt events of a successful transaction that were emitted by the payment package
 * `paymentPackageId`. A struct of the same name from any other package is ignored: anyone can
 * publish a module that emits a look-alike receipt. So is a receipt lacking a field the check
 * needs: it proves nothing, which the caller reports as no receipt.
 */
export function paymentReceiptsOf(tx: ChainTransaction, paymentPackageId: string): PaymentReceipt[] {
  if (tx.status !== 'success') return [];
  const receiptType = `${paymentPackageId}::${cartContract.payment.module}::PaymentReceipt`;
  return tx.events
    .filter((event) => sameStructType(event.type, receiptType))
    .flatMap((event) => {
      const parsed = receiptSchema.safeParse(event.parsedJson);
      if (!parsed.success) return [];
      const { coin_type: coinType, ...receipt } = parsed.data;
      return [{ eventId: event.id, coinType, ...receipt }];
    });
}
