import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/** How long a lock's holder may count on it, and how long the server keeps a silent holder's lock. */
export interface LockTiming {
  /** How often the holder's session asks Postgres anything, proving it is still there. */
  heartbeatMs: number;
  /**
   * How long after sending its last answered query the holder counts itself the holder: past
   * it, it stops its work, and its effects' checks refuse.
   */
  leaseMs: number;
  /**
   * The longest an effect checked under the lock may still run after its check (a provider
   * call's deadline): it must be over before another session can take the lock.
   */
  longestEffectMs: number;
}

export const defaultLockTiming: LockTiming = { heartbeatMs: 2000, leaseMs: 10_000, longestEffectMs: 10_000 };

/** The default timing for a lock whose effects (their deadline) may run `longestEffectMs`. */
export function lockTimingFor(longestEffectMs: number): LockTiming {
  return { ...defaultLockTiming, longestEffectMs };
}

/** What the server's clock and timers may differ from the holder's over one lease, and more. */
const clockMarginMs = (timing: LockTiming) =>
  Math.max(100, Math.ceil((timing.leaseMs + timing.longestEffectMs) / 20));

/**
 * How long the server keeps the session, and so its locks, after the holder last sent it
 * anything: the lease, then the longest effect, then a margin for the two clocks.
 */
export function serverSilenceMs(timing: LockTiming): number {
  return timing.leaseMs + timing.longestEffectMs + clockMarginMs(timing);
}

/**
 * The server-side settings of a lock's session, set before its first lock is taken (with SET
 * rather than in the startup packet, which poolers refuse). Each is a way the server ends a
 * session whose client has gone silent; each waits at least `serverSilenceMs` after the last
 * thing the client sent:
 * - `idle_session_timeout`: the backend ends once idle that long after its last query, the only
 *   one that also works through a proxy or pooler that keeps the TCP connection itself alive;
 * - `tcp_keepalives_idle`: probes start only after that long without a packet from the client;
 * - `tcp_user_timeout`: an answer the client has not acknowledged for that long ends it (the
 *   server sends only answers, so nothing it sent predates the client's last query).
 */
function serverSettings(timing: LockTiming): string {
  const silenceMs = serverSilenceMs(timing);
  const settings: [string, number][] = [
    ['idle_session_timeout', silenceMs],
    ['tcp_keepalives_idle', Math.ceil(silenceMs / 1000)],
    ['tcp_keepalives_interval', 1],
    ['tcp_keepalives_count', 3],
    ['tcp_user_timeout', silenceMs],
  ];
  return settings.map(([name, value]) => `SET ${name} = ${value};`).join(' ');
}

/** Thrown by an effect's check when its lock may have passed to another process. */
export class LockLost extends Error {
  constructor(name: string) {
    super(`the lock ${name} is no longer held: the effect is left to its holder`);
    this.name = 'LockLost';
  }
}

/** What an effect that must not run twice at once checks right before it runs. */
export interface LockCheck {
  /**
   * Throws LockLost unless the lock is held: an effect that passes and keeps to its deadline
   * (`longestEffectMs`) ends before another process can take the lock.
   */
  assertHeld(): void;
}

/** The check of work that runs without a lock (no database configured): it always passes. */
export const noLockCheck: LockCheck = { assertHeld: () => undefined };

/**
 * A Postgres session that holds advisory locks and knows when it may have lost them.
 *
 * The timing argument. Let `c` be when the holder sent the last query the session answered (its
 * monotonic clock). The server frees the session's locks on a silent client only through the
 * settings above, each at least `serverSilenceMs` = lease + longest effect + margin after `c`:
 * the query reached the server after `c`, so did every later packet of the client, and the
 * server's last answer was sent after it. The holder counts itself the holder until `c` +
 * lease: there its lease lapses (`onLost`: its work stops, in-hand messages are handed back),
 * and every effect checks `live` right before it starts, so the last one starts before `c` +
 * lease and, within its deadline, ends before `c` + lease + longest effect: strictly before a
 * standby can acquire. A heartbeat every `heartbeatMs` moves `c` on while the path is up; one
 * that is not answered lets the lease lapse. Not covered: the backend ended otherwise
 * (`pg_terminate_backend`, a Postgres crash) while the holder's path is frozen. The holder then
 * learns nothing until its lease lapses, so another may act meanwhile: the provider's
 * idempotency key stays the backstop of every funding call.
 */
export class LockSession {
  private client: pg.Client | null;
  /** When the last answered query was sent (performance.now()). */
  private contactAt: number;
  private readonly heartbeat: NodeJS.Timeout;
  private lapse: NodeJS.Timeout | null = null;
  private queries: Promise<unknown> = Promise.resolve();
  private pending = 0;

  private constructor(
    client: pg.Client,
    connectingAt: number,
    private readonly timing: LockTiming,
    private readonly onLost: () => void,
  ) {
    this.client = client;
    this.contactAt = connectingAt;
    client.on('error', () => void this.close());
    client.on('end', () => void this.close());
    this.heartbeat = setInterval(() => {
      if (this.pending === 0) this.query('SELECT 1', []).catch(() => this.close());
    }, timing.heartbeatMs);
    this.heartbeat.unref();
    this.armLapse();
  }

  /** A session on `databaseUrl`; `onLost` is called once, when it ends or its lease lapses. */
  static async open(
    databaseUrl: string,
    applicationName: string,
    timing: LockTiming,
    onLost: () => void,
  ): Promise<LockSession> {
    const connectingAt = performance.now();
    const client = new pg.Client({
      connectionString: databaseUrl,
      application_name: applicationName.slice(0, 63),
      keepAlive: true,
      keepAliveInitialDelayMillis: timing.heartbeatMs,
      connectionTimeoutMillis: timing.leaseMs,
      query_timeout: timing.leaseMs,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query(serverSettings(timing));
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return new LockSession(client, connectingAt, timing, onLost);
  }

  /** Whether the session is up and its lease has not lapsed: its locks are still its own. */
  get live(): boolean {
    return this.client !== null && performance.now() < this.contactAt + this.timing.leaseMs;
  }

  /**
   * One query at a time (pg queues concurrent ones only as a deprecated courtesy); an answered
   * one renews the lease from when it was sent.
   */
  query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    const client = this.client;
    if (!client) return Promise.reject(new Error('the lock session has ended'));
    this.pending += 1;
    const result = this.queries.then(async () => {
      const sentAt = performance.now();
      const answer = await client.query<R>(text, values);
      if (this.client === client && sentAt > this.contactAt) {
        this.contactAt = sentAt;
        this.armLapse();
      }
      return answer;
    });
    this.queries = result.catch(() => undefined).finally(() => (this.pending -= 1));
    return result;
  }

  /**
   * Ends the session, its locks with it: at once, or over a frozen path when the server gives it
   * up. Waits for the goodbye a heartbeat at most.
   */
  async close(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.client = null;
    clearInterval(this.heartbeat);
    if (this.lapse) clearTimeout(this.lapse);
    const ended = client.end().catch(() => undefined);
    this.onLost();
    await Promise.race([ended, sleep(this.timing.heartbeatMs, undefined, { ref: false })]);
  }

  private armLapse(): void {
    if (this.lapse) clearTimeout(this.lapse);
    const lapse = () => {
      if (this.live) this.lapse = setTimeout(lapse, this.contactAt + this.timing.leaseMs - performance.now());
      else void this.close();
    };
    this.lapse = setTimeout(lapse, this.contactAt + this.timing.leaseMs - performance.now());
  }
}
