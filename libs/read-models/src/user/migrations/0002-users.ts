import { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('user_id', 'uuid', (c) => c.primaryKey())
    .addColumn('provider_subject', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text')
    .addColumn('display_name', 'text')
    .addColumn('onboarding_step', 'smallint', (c) => c.notNull())
    .addColumn('shipping_address', 'jsonb')
    .addColumn('sizes', 'jsonb')
    .addColumn('wallet_status', 'text', (c) => c.notNull())
    .addColumn('wallet_error', 'text')
    .addColumn('sui_address', 'text')
    .addColumn('evm_address', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
}
