import { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('agent_activity')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('cart_adds', 'integer', (c) => c.notNull())
    .addColumn('orders', 'integer', (c) => c.notNull())
    .execute();
}
