import { Kysely, Migration, MigrationProvider, Migrator, sql } from 'kysely';
import * as bookkeeping from './migrations/0001-read-model-bookkeeping';

/** Checkpoints and parking: every schema that projections write into starts with these. */
export const bookkeepingMigrations: Record<string, Migration> = {
  '0001-read-model-bookkeeping': bookkeeping,
};

/**
 * Creates or upgrades `schema` with `migrations`. The same migrations build a live schema
 * and any rebuild of it, so a rebuilt read model has exactly the live shape.
 */
export async function migrateSchema(
  db: Kysely<unknown>,
  schema: string,
  migrations: Record<string, Migration>,
): Promise<string[]> {
  await createSchemaIfMissing(db, schema);
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  const migrator = new Migrator({ db: db.withSchema(schema), provider, migrationTableSchema: schema });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    // Kysely lists every table in the database first; a schema dropped or swapped at that moment
    // by another session (a replay, a parallel test) is a race, not a broken migration.
    const code = (error as { code?: string }).code ?? '';
    if (attempt >= 5 || !catalogueRaceCodes.has(code)) throw error;
  }
}

/**
 * "schema does not exist" and "table does not exist", as a concurrent DROP makes them, and
 * "unique violation" in the catalogue, as two concurrent CREATE ... IF NOT EXISTS make it.
 */
const catalogueRaceCodes = new Set(['3F000', '42P01', '23505']);

/**
 * `IF NOT EXISTS` is not atomic in Postgres: two processes starting together (two indexers,
 * a gateway and a projector) can both pass the check and one then fails on pg_namespace's
 * unique index. The loser's schema exists by then, which is all it wanted.
 */
async function createSchemaIfMissing(db: Kysely<unknown>, schema: string): Promise<void> {
  try {
    await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(db);
  } catch (error) {
    if ((error as { code?: string }).code !== '23505') throw error;
  }
}
