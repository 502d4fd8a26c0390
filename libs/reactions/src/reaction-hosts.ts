import { ExclusiveLock } from './advisory-lock';
import { defaultLockTiming, LockLost, LockSession, LockTiming } from './lock-session';
import { ReactionPartition } from './reaction-partition';

/** How often the count of hosts is read again, at most. */
const refreshEveryMs = 1000;

/** How long a process that could not consume stays out of the count of hosts. */
const stepBackMs = 5000;

interface PartitionLock {
  reaction: string;
  index: number;
  held: boolean;
  onLost: () => void;
}

/**
 * A process as a host of a stream's partitioned reactions, on one Postgres session of its own:
 * the session holds the advisory lock of every partition the process holds (one connection per
 * process, not one per partition, and a standby's tries cost no new connection), and counts the
 * process in as a host of each reaction with a shared advisory lock, so each reaction's
 * partitions spread over the hosts rather than all staying with the first one up. A process
 * claims a partition only while it holds fewer than its share, ceil(partitions / hosts), and
 * lets its highest surplus partition go when a host joins. A process that cannot consume (its
 * NATS connection gone, its Postgres still there) steps back out of the count for a while, so
 * the others' shares cover the partitions it cannot run. The session ends with the process,
 * freeing its partitions and growing the others' shares at once. When the session breaks,
 * every lock on it is lost together; until it is back, the process counts itself the only host
 * (each partition still has a single holder: the locks decide that, not the shares). The session
 * is a LockSession: a holder whose session falls silent loses its locks before a standby can
 * take them.
 */
export class ReactionHosts {
  private session: LockSession | null = null;
  private connecting: Promise<LockSession> | null = null;
  private readonly joined = new Set<string>();
  /** Until when this process stays out of each reaction's hosts (see stepBack). */
  private readonly backUntil = new Map<string, number>();
  private readonly hosts = new Map<string, number>();
  private readonly locks = new Map<string, PartitionLock>();
  private refreshing: Promise<void> | null = null;
  private refreshedAt = 0;

  constructor(
    private readonly databaseUrl: string,
    private readonly stream: string,
    private readonly timing: LockTiming = defaultLockTiming,
  ) {}

  /** The lock `key` of `reaction`'s `partition`, held on this process's session. */
  lock(reaction: string, partition: ReactionPartition, key: string, onLost: () => void): ExclusiveLock {
    const entry: PartitionLock = { reaction, index: partition.index, held: false, onLost };
    this.locks.set(key, entry);
    const held = () => entry.held && this.session?.live === true;
    return {
      get held() {
        return held();
      },
      assertHeld: () => {
        if (!held()) throw new LockLost(key);
      },
      tryAcquire: async () => {
        if (entry.held) return held();
        const session = await this.connection();
        const { rows } = await session.query<{ locked: boolean }>(
          'SELECT pg_try_advisory_lock(hashtext($1)) AS locked',
          [key],
        );
        // Taken on a session that has broken meanwhile, it is no longer held.
        entry.held = rows[0]?.locked === true && this.session === session;
        return held();
      },
      release: async () => {
        const session = this.session;
        if (!entry.held || !session) return;
        entry.held = false;
        // A lock left on the session would be this process's until it dies: rather end the session.
        await session.query('SELECT pg_advisory_unlock(hashtext($1))', [key]).catch(() => this.drop(session));
      },
    };
  }

  /** Whether this process may take one more of `reaction`'s partitions. */
  async mayClaim(reaction: string, partition: ReactionPartition): Promise<boolean> {
    await this.refresh();
    // Stepped back, it claims only while no other host is there to.
    if (this.steppedBack(reaction)) return (this.hosts.get(reaction) ?? 0) === 0;
    return this.held(reaction).length < this.share(reaction, partition.count);
  }

  /** Whether this process holds more of `reaction`'s partitions than its share, `partition` the one to let go. */
  async surplus(reaction: string, partition: ReactionPartition): Promise<boolean> {
    await this.refresh();
    const held = this.held(reaction);
    return held.length > this.share(reaction, partition.count) && Math.max(...held) === partition.index;
  }

  /**
   * Counts this process out of `reaction`'s hosts for a while, and keeps it from claiming while
   * another host is there: one of its runners could not consume, and a host that cannot must
   * neither hold the others to shares that leave partitions with no holder able to run them, nor
   * keep taking the partitions they would run.
   */
  async stepBack(reaction: string): Promise<void> {
    this.backUntil.set(reaction, Date.now() + stepBackMs);
    const session = this.session;
    if (!session || !this.joined.delete(reaction)) return;
    await session
      .query('SELECT pg_advisory_unlock_shared(hashtext($1), hashtext($2))', [this.group, reaction])
      .catch(() => this.drop(session));
  }

  /** The partitions of `reaction` this process holds. */
  held(reaction: string): number[] {
    return [...this.locks.values()].filter((l) => l.reaction === reaction && l.held).map((l) => l.index);
  }

  /** Ends the session, and with it every lock still on it; the runners are stopped first. */
  async close(): Promise<void> {
    await this.refreshing;
    const session = this.session ?? (await this.connecting?.catch(() => null));
    if (session) await this.drop(session);
  }

  private steppedBack(reaction: string): boolean {
    return (this.backUntil.get(reaction) ?? 0) > Date.now();
  }

  private get group(): string {
    return `reaction-hosts:${this.stream}`;
  }

  private share(reaction: string, partitions: number): number {
    return Math.ceil(partitions / Math.max(1, this.hosts.get(reaction) ?? 1));
  }

  private refresh(): Promise<void> {
    if (Date.now() - this.refreshedAt < refreshEveryMs) return Promise.resolve();
    this.refreshing ??= this.count()
      .catch(() => {
        if (this.session) void this.drop(this.session);
      })
      .finally(() => {
        this.refreshedAt = Date.now();
        this.refreshing = null;
      });
    return this.refreshing;
  }

  private async count(): Promise<void> {
    const session = await this.connection();
    const group = this.group;
    for (const reaction of new Set([...this.locks.values()].map((l) => l.reaction))) {
      if (!this.joined.has(reaction) && !this.steppedBack(reaction)) {
        await session.query('SELECT pg_advisory_lock_shared(hashtext($1), hashtext($2))', [group, reaction]);
        this.joined.add(reaction);
      }
      const { rows } = await session.query<{ hosts: string }>(
        `SELECT count(*) AS hosts FROM pg_locks
          WHERE locktype = 'advisory' AND granted AND objsubid = 2
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND classid = hashtext($1)::oid AND objid = hashtext($2)::oid`,
        [group, reaction],
      );
      this.hosts.set(reaction, Number(rows[0]!.hosts));
    }
  }

  private connection(): Promise<LockSession> {
    if (this.session) return Promise.resolve(this.session);
    this.connecting ??= this.connect().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async connect(): Promise<LockSession> {
    const session: LockSession = await LockSession.open(
      this.databaseUrl,
      `hosts:reaction:${this.stream}`,
      this.timing,
      () => void this.drop(session),
    );
    this.session = session;
    return session;
  }

  /** The session is gone, silent or given up: every lock on it is lost, the count starts over. */
  private async drop(session: LockSession): Promise<void> {
    if (this.session !== session) return;
    this.session = null;
    this.joined.clear();
    this.hosts.clear();
    for (const lock of this.locks.values()) {
      if (!lock.held) continue;
      lock.held = false;
      lock.onLost();
    }
    await session.close();
  }
}
