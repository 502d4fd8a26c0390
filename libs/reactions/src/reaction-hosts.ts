import pg from 'pg';
import { ReactionPartition } from './reaction-partition';

/** How often the count of hosts is read again, at most. */
const refreshEveryMs = 1000;

/**
 * The processes that host a stream's reactions, so each reaction's partitions spread over them
 * rather than all staying with the first one up: a process claims a partition only while it
 * holds fewer than its share, ceil(partitions / hosts), and lets its highest surplus partition
 * go when a host joins. A process counts itself in as a host of each reaction it runs with a
 * shared advisory lock on one Postgres connection of its own, which ends with the process, so
 * the others' shares grow as soon as it dies. Until that connection is up, a process counts
 * itself the only host (any partition's holder is then still a single one: the locks decide).
 */
export class ReactionHosts {
  private client: pg.Client | null = null;
  private readonly joined = new Set<string>();
  private readonly hosts = new Map<string, number>();
  /** Whether each of this process's runners holds its partition, by reaction and partition. */
  private readonly holders = new Map<string, Map<number, () => boolean>>();
  private refreshing: Promise<void> | null = null;
  private refreshedAt = 0;

  constructor(
    private readonly databaseUrl: string,
    private readonly stream: string,
  ) {}

  /** Counts a runner of this process in; `holds` tells whether it holds its partition now. */
  register(reaction: string, partition: ReactionPartition, holds: () => boolean): void {
    const own = this.holders.get(reaction) ?? new Map<number, () => boolean>();
    own.set(partition.index, holds);
    this.holders.set(reaction, own);
  }

  /** Whether this process may take one more of `reaction`'s partitions. */
  async mayClaim(reaction: string, partition: ReactionPartition): Promise<boolean> {
    await this.refresh();
    return this.held(reaction).length < this.share(reaction, partition.count);
  }

  /** Whether this process holds more of `reaction`'s partitions than its share, and `partition` is the one to let go. */
  async surplus(reaction: string, partition: ReactionPartition): Promise<boolean> {
    await this.refresh();
    const held = this.held(reaction);
    return held.length > this.share(reaction, partition.count) && Math.max(...held) === partition.index;
  }

  /** The partitions of `reaction` this process holds. */
  held(reaction: string): number[] {
    return [...(this.holders.get(reaction) ?? new Map<number, () => boolean>())]
      .filter(([, holds]) => holds())
      .map(([index]) => index);
  }

  async close(): Promise<void> {
    await this.refreshing;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private share(reaction: string, partitions: number): number {
    return Math.ceil(partitions / Math.max(1, this.hosts.get(reaction) ?? 1));
  }

  private refresh(): Promise<void> {
    if (Date.now() - this.refreshedAt < refreshEveryMs) return Promise.resolve();
    this.refreshing ??= this.count()
      .catch(() => {
        // Counted alone again until the connection is back: holders are still single (the locks).
        this.hosts.clear();
        this.joined.clear();
        const client = this.client;
        this.client = null;
        void client?.end().catch(() => undefined);
      })
      .finally(() => {
        this.refreshedAt = Date.now();
        this.refreshing = null;
      });
    return this.refreshing;
  }

  private async count(): Promise<void> {
    const client = await this.connection();
    const group = `reaction-hosts:${this.stream}`;
    for (const reaction of this.holders.keys()) {
      if (!this.joined.has(reaction)) {
        await client.query('SELECT pg_advisory_lock_shared(hashtext($1), hashtext($2))', [group, reaction]);
        this.joined.add(reaction);
      }
      const { rows } = await client.query<{ hosts: string }>(
        `SELECT count(*) AS hosts FROM pg_locks
          WHERE locktype = 'advisory' AND granted AND objsubid = 2
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND classid = hashtext($1)::oid AND objid = hashtext($2)::oid`,
        [group, reaction],
      );
      this.hosts.set(reaction, Number(rows[0]!.hosts));
    }
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      application_name: `hosts:reaction:${this.stream}`.slice(0, 63),
    });
    client.on('error', () => undefined);
    client.on('end', () => {
      if (this.client !== client) return;
      this.client = null;
      this.joined.clear();
    });
    await client.connect().catch(async (error: unknown) => {
      await client.end().catch(() => undefined);
      throw error;
    });
    this.client = client;
    return client;
  }
}
