import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

// bigint columns are stream sequences, well inside Number's exact range; parse them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export interface DatabaseHandle {
  /** Spans every schema; a caller types it by the schema it works in (`withSchema`). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  pool: pg.Pool;
  close(): Promise<void>;
}

/** One pool per process. */
export function createDatabase(
  url: string,
  options: { max?: number; applicationName?: string } = {},
): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
  });
  // A dropped idle connection (Postgres restart) must not crash the process.
  pool.on('error', () => undefined);
  // Nor one dropped while checked out (mid-query or mid-transaction): pg emits 'error' on the
  // client then, which the pool listens to only while the client is idle. The query itself fails.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  return { db, pool, close: () => db.destroy() };
}
