import { ColumnType } from 'kysely';
import { BookkeepingDatabase } from '@shop/db';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** One row per transaction digest: the payment record, a projection of its `payment` events. */
export interface PaymentTransactionsTable {
  tx_hash: string;
  payment_id: string;
  user_id: string;
  status: 'PENDING' | 'SUCCESS' | 'FAILED';
  /** MIST as digits: the verified amount, or what the merchant received when verification failed. */
  amount: string;
  receiver: string;
  payer: string | null;
  network: string;
  coin_type: string;
  failure_code: string | null;
  failure_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Stream sequence of the last commit folded in. */
  version: number;
}

/** The search service's own schema (SEARCH_SCHEMA): projection bookkeeping and its projections. */
export interface SearchDatabase extends BookkeepingDatabase {
  payment_transactions: PaymentTransactionsTable;
}
