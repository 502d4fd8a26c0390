import { Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('data_keys')
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .addColumn('ciphertext', 'bytea')
    .addColumn('iv', 'bytea')
    .addColumn('auth_tag', 'bytea')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('destroyed_at', 'timestamptz')
    .execute();
}
