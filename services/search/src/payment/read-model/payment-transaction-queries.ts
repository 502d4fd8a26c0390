import { Kysely, Selectable } from 'kysely';
import { PaymentTransactionsTable, SearchDatabase } from './search-database';

/** One transaction record, by its digest or by its payment id. */
export function paymentTransaction(
  db: Kysely<SearchDatabase>,
  key: { txHash: string } | { paymentId: string },
): Promise<Selectable<PaymentTransactionsTable> | undefined> {
  const query = db.selectFrom('payment_transactions').selectAll();
  return (
    'txHash' in key ? query.where('tx_hash', '=', key.txHash) : query.where('payment_id', '=', key.paymentId)
  ).executeTakeFirst();
}
