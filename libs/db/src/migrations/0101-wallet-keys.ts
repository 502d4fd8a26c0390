import { Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('wallet_keys')
    .addColumn('user_id', 'uuid', (c) => c.primaryKey())
    .addColumn('sui_address', 'text', (c) => c.notNull().unique())
    .addColumn('ciphertext', 'bytea', (c) => c.notNull())
    .addColumn('iv', 'bytea', (c) => c.notNull())
    .addColumn('auth_tag', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}
