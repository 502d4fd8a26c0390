import { Migration } from 'kysely';
import { bookkeepingMigrations } from '@shop/db';
import * as paymentTransactions from './migrations/0002-payment-transactions';

/** SEARCH_SCHEMA, live or rebuilt: the projection bookkeeping, then this service's tables. */
export const searchMigrations: Record<string, Migration> = {
  ...bookkeepingMigrations,
  '0002-payment-transactions': paymentTransactions,
};
