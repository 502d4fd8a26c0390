import { Kysely, Migration, sql } from 'kysely';

/** The indexer's cursor: bookkeeping, not a read model (losing it only re-reads the chain, harmlessly). */
export interface IndexerDatabase {
  indexer_cursors: { name: string; tx_digest: string; event_seq: string; updated_at: Date };
}

export const indexerMigrations: Record<string, Migration> = {
  '0001-indexer-cursors': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('indexer_cursors')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('tx_digest', 'text', (c) => c.notNull())
        .addColumn('event_seq', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
    },
  },
};
