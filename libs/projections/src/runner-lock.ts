import pg from 'pg';

/**
 * The lock that keeps one active runner per unit (a projection, or a partition of one) and
 * schema: a Postgres session-level advisory lock, so it is free again the moment its holder's
 * connection ends, however the holder died.
 */
export interface RunnerLock {
  /** True once held (`onLost` is then called should the lock go with its connection); false while another holds it. */
  acquire(onLost: () => void): Promise<boolean>;
  release(): Promise<void>;
}

/** The text whose hashtext() is the advisory lock key of a unit in a schema. */
export function runnerLockKey(schema: string, unit: string): string {
  return `${schema}:${unit}`;
}

/** A lock on a connection of its own, for a runner that runs alone (not under PartitionClaims). */
export function ownConnectionLock(databaseUrl: string, schema: string, unit: string): RunnerLock {
  let held: pg.Client | null = null;
  return {
    async acquire(onLost) {
      if (held) return true;
      const client = new pg.Client({ connectionString: databaseUrl, application_name: `lock:${unit}` });
      client.on('error', () => undefined);
      await client.connect();
      const result = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_lock(hashtext($1)) AS locked',
        [runnerLockKey(schema, unit)],
      );
      if (!result.rows[0]?.locked) {
        await client.end().catch(() => undefined);
        return false;
      }
      client.on('end', () => {
        if (held !== client) return;
        held = null;
        onLost();
      });
      held = client;
      return true;
    },
    async release() {
      const client = held;
      held = null;
      await client?.end().catch(() => undefined);
    },
  };
}
