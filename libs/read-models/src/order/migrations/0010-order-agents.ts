import { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('orders').addColumn('agent_client_id', 'uuid').execute();
  await db.schema
    .createTable('agent_clients')
    .addColumn('client_id', 'uuid', (c) => c.primaryKey())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
}
