import type { Kysely } from 'kysely';
import type { OpenWork } from '@shop/metrics';
import type { ReadModelDatabase } from '@shop/read-models';

/** Deposits claimed and not yet credited or failed: the orders of type deposit still in progress. */
export function openDepositClaims(db: Kysely<ReadModelDatabase>) {
  return db.selectFrom('orders').where('type', '=', 'deposit').where('status', '=', 'in_progress');
}

/** How many claims are open and since when, for the `money_open` metrics. */
export async function openDepositWork(db: Kysely<ReadModelDatabase>): Promise<OpenWork> {
  const row = await openDepositClaims(db)
    .select((eb) => [eb.fn.countAll<string>().as('count'), eb.fn.min('updated_at').as('oldest')])
    .executeTakeFirst();
  return { count: Number(row?.count ?? 0), oldest: row?.oldest ? new Date(row.oldest) : null };
}
