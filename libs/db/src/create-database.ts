import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

// bigint columns are stream sequences, well inside Number's exact range; parse them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * A query of several statements (only possible without bind parameters: the simple protocol)
 * answers with its last statement's result, the one Kysely reads (it expects one result and
 * would see no rows in pg's array of them). So `BEGIN; UPDATE ... RETURNING ...` costs one round
 * trip and still returns what the UPDATE returned.
 */
class LastResultClient extends pg.Client {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const result = (super.query as (...a: any[]) => any)(...args);
    return result instanceof Promise
      ? result.then((answer: unknown) => (Array.isArray(answer) ? answer.at(-1) : answer))
      : result;
  }
}

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
    Client: LastResultClient,
  });
  // A dropped idle connection (Postgres restart) must not crash the process.
  pool.on('error', () => undefined);
  // Nor one dropped while checked out (mid-query or mid-transaction): pg emits 'error' on the
  // client then, which the pool listens to only while the client is idle. The query itself fails.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  return { db, pool, close: () => db.destroy() };
}
