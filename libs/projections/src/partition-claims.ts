import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { RunnerLogger } from './projection-runner';
import { RunnerLock, runnerLockKey } from './runner-lock';

/** What the claims start and stop: a ProjectionRunner. */
export interface ClaimableRunner {
  readonly name: string;
  readonly running: boolean;
  /** Stopped on purpose: claims take it again only if they stopped it themselves. */
  readonly halted: boolean;
  claim(): Promise<boolean>;
  stop(): Promise<void>;
}

export interface PartitionClaimsOptions {
  databaseUrl: string;
  /** The read-model schema: members and locks are counted per schema. */
  schema: string;
  /** How often members are counted and claims adjusted. */
  intervalMs?: number;
  logger?: RunnerLogger;
}

/**
 * The most units one member holds while `members` share `units`: every unit has a holder, and no
 * member holds more than its share rounded up.
 */
export function fairShare(units: number, members: number): number {
  return Math.ceil(units / Math.max(1, members));
}

const memberPrefix = 'projector-member:';

/**
 * Spreads a projector's units (runners) over its processes. Each unit has one holder, its
 * advisory lock, so a unit whose holder dies (its lock's connection ends) is free to claim.
 * Each process is a member through one Postgres connection of its own, named
 * `projector-member:<schema>:<group>:<id>`, which also holds the locks of all its units (see
 * lockFor), so a process needs one connection however many units it holds. Its group is a hash
 * of the schema and its units: processes given other projections (PROJECTIONS) share nothing,
 * so they do not count as each other's members. Every tick it counts the live members of its
 * group in pg_stat_activity, claims free units up to its fair share, and stops what it holds beyond that (a runner stops
 * at a batch boundary and releases its lock), so a process that joins gets its share within a
 * tick or two. A member's death ends its connection, and with it its locks and its membership.
 */
export class PartitionClaims {
  private member: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> = Promise.resolve();
  /** The last query asked of the member connection (see serially). */
  private queue: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private runners: readonly ClaimableRunner[] = [];
  /** Units these claims stopped (over the share), free to claim again; others stopped are left stopped. */
  private readonly released = new Set<string>();
  /** Per unit held on the member connection: what to call should that connection end. */
  private readonly lockHolders = new Map<string, () => void>();
  private group = '';
  private readonly id = randomBytes(4).toString('hex');

  constructor(private readonly options: PartitionClaimsOptions) {}

  /** The member connection's application_name (63 bytes at most: the schema is cut, for reading only). */
  get memberName(): string {
    return `${this.group}${this.id}`;
  }

  /** The units this process holds now. */
  held(): string[] {
    return this.runners.filter((r) => r.running).map((r) => r.name);
  }

  /** The lock of `unit`, held on the member connection: what a runner under these claims is given. */
  lockFor(unit: string): RunnerLock {
    const key = runnerLockKey(this.options.schema, unit);
    return {
      acquire: (onLost) =>
        this.serially(async () => {
          if (this.lockHolders.has(unit)) return true;
          const member = await this.connect();
          const { rows } = await member.query<{ locked: boolean }>(
            'SELECT pg_try_advisory_lock(hashtext($1)) AS locked',
            [key],
          );
          if (!rows[0]?.locked) return false;
          // The connection may have ended while the answer travelled: then the lock went with it.
          if (this.member !== member) return false;
          this.lockHolders.set(unit, onLost);
          return true;
        }),
      release: async () => {
        // Without a member connection there is no lock left to release.
        if (!this.lockHolders.delete(unit) || !this.member) return;
        await this.serially(async () => {
          await this.member?.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
        }).catch(() => undefined);
      },
    };
  }

  /** Claims among `runners` (each given its lock by lockFor), now and every tick. */
  async start(runners: readonly ClaimableRunner[]): Promise<void> {
    this.runners = runners;
    const { schema } = this.options;
    const units = runners.map((r) => r.name).sort();
    const hash = createHash('sha256')
      .update(JSON.stringify([schema, units]))
      .digest('hex')
      .slice(0, 8);
    this.group = `${memberPrefix}${schema.slice(0, 24)}:${hash}:`;
    await this.connect();
    await this.tick();
    this.timer = setInterval(() => {
      this.ticking = this.ticking.then(() => this.tick());
    }, this.options.intervalMs ?? 1000);
  }

  /** Stops every runner it holds (each releases its lock) and leaves the membership. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await Promise.all(this.runners.map((r) => r.stop()));
    await this.member?.end().catch(() => undefined);
    this.member = null;
  }

  /**
   * Runs `use` once every query it was called after has finished on the member connection: runners
   * stopping together release their locks at once, and pg queues overlapping queries on one client
   * only until pg@9 (pg 8 warns). Nothing run here waits for another such turn.
   */
  private serially<R>(use: () => Promise<R>): Promise<R> {
    const turn = this.queue.then(use);
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** The member connection, opened once however many runners and ticks ask for it meanwhile. */
  private connect(): Promise<pg.Client> {
    if (this.member) return Promise.resolve(this.member);
    this.connecting ??= this.open().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async open(): Promise<pg.Client> {
    if (!this.group) throw new Error('partition claims not started');
    const client = new pg.Client({
      connectionString: this.options.databaseUrl,
      application_name: this.memberName,
    });
    client.on('error', () => undefined);
    client.on('end', () => {
      if (this.member !== client) return;
      this.member = null;
      // Every lock went with the connection: each runner holding one stops applying.
      const lost = [...this.lockHolders.values()];
      this.lockHolders.clear();
      for (const onLost of lost) onLost();
    });
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.member = client;
    return client;
  }

  /**
   * The units whose lock nobody holds, from pg_locks, in one query: a member short of its share
   * would otherwise try every unit the others hold, a round trip each, every tick. A bigint
   * advisory key shows as its high 32 bits (classid) and low 32 bits (objid).
   */
  private async freeUnits(member: pg.Client): Promise<Set<string>> {
    const names = this.runners.filter((r) => !r.running).map((r) => r.name);
    const { rows } = await this.serially(() =>
      member.query<{ name: string }>(
        `SELECT name FROM unnest($1::text[], $2::text[]) AS u(name, key)
        WHERE NOT EXISTS (
          SELECT 1 FROM pg_locks l
           WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted
             AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND l.classid::bigint = ((hashtext(u.key)::bigint >> 32) & 4294967295)
             AND l.objid::bigint = (hashtext(u.key)::bigint & 4294967295))`,
        [names, names.map((name) => runnerLockKey(this.options.schema, name))],
      ),
    );
    return new Set(rows.map((r) => r.name));
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      const member = await this.connect();
      const { rows } = await this.serially(() =>
        member.query<{ members: number }>(
          `SELECT count(*)::int AS members FROM pg_stat_activity
            WHERE left(application_name, length($1)) = $1 AND datname = current_database()`,
          [this.group],
        ),
      );
      const share = fairShare(this.runners.length, rows[0]?.members ?? 1);
      const held = this.runners.filter((r) => r.running);
      if (held.length > share) {
        const extras = held.slice(share);
        for (const runner of extras) this.released.add(runner.name);
        await Promise.all(extras.map((r) => r.stop()));
        this.options.logger?.info(
          { share, released: extras.map((r) => r.name), held: this.held() },
          'units over the fair share released',
        );
        return;
      }
      if (held.length === share) return;
      const free = await this.freeUnits(member);
      const claimed: string[] = [];
      for (const runner of this.runners) {
        if (held.length + claimed.length >= share || this.stopped) break;
        if (runner.running || !free.has(runner.name)) continue;
        if (runner.halted && !this.released.has(runner.name)) continue;
        if (!(await runner.claim())) continue;
        this.released.delete(runner.name);
        claimed.push(runner.name);
      }
      if (claimed.length > 0)
        this.options.logger?.info({ share, claimed, held: this.held() }, 'units claimed');
    } catch (error) {
      this.options.logger?.warn({ err: error }, 'partition claims: tick failed');
    }
  }
}
