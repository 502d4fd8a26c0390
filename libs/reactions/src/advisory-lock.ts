import pg from 'pg';

/** A lock one process at a time holds, lost when its holder dies. */
export interface ExclusiveLock {
  readonly held: boolean;
  /** Takes the lock unless another holds it; true while this one holds it. */
  tryAcquire(): Promise<boolean>;
  release(): Promise<void>;
}

/**
 * A Postgres session-level advisory lock on a connection of its own: held while that connection
 * lives, so the death of the holding process frees it for a standby. One process at a time runs
 * each reaction, and drives a reconciler's open work, under one.
 */
export class AdvisoryLock implements ExclusiveLock {
  private client: pg.Client | null = null;

  constructor(
    private readonly databaseUrl: string,
    /** The lock's key (hashed by Postgres). */
    private readonly name: string,
    /** How the holding session shows in pg_stat_activity. */
    private readonly applicationName: string,
    /** Called when the connection ends while the lock was held: another session may take it now. */
    private readonly onLost: () => void = () => undefined,
  ) {}

  get held(): boolean {
    return this.client !== null;
  }

  /** Takes the lock unless another session holds it; true while this one holds it. */
  async tryAcquire(): Promise<boolean> {
    if (this.client) return true;
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      application_name: this.applicationName.slice(0, 63),
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const result = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_lock(hashtext($1)) AS locked',
        [this.name],
      );
      if (!result.rows[0]?.locked) {
        await client.end();
        return false;
      }
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    client.on('end', () => {
      if (this.client !== client) return;
      this.client = null;
      this.onLost();
    });
    this.client = client;
    return true;
  }

  async release(): Promise<void> {
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
