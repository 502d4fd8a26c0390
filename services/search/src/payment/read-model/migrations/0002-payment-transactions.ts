import { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('payment_transactions')
    .addColumn('tx_hash', 'text', (c) => c.primaryKey())
    .addColumn('payment_id', 'uuid', (c) => c.notNull().unique())
    .addColumn('user_id', 'uuid', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('receiver', 'text', (c) => c.notNull())
    .addColumn('payer', 'text')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('coin_type', 'text', (c) => c.notNull())
    .addColumn('failure_code', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
}
