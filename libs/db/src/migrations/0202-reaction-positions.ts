import { Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('reaction_positions')
    .addColumn('reaction', 'text', (c) => c.notNull())
    .addColumn('partition', 'text', (c) => c.notNull())
    .addColumn('sequence', 'bigint', (c) => c.notNull())
    .addColumn('recorded_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('reaction_positions_pk', ['reaction', 'partition'])
    .execute();
}
