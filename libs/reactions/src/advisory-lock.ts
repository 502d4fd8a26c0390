import { defaultLockTiming, LockCheck, LockLost, LockSession, LockTiming } from './lock-session';

/** A lock one process at a time holds, lost when its holder dies or falls silent. */
export interface ExclusiveLock extends LockCheck {
  /** Whether this process holds it: false as soon as its lease has lapsed, whatever Postgres knows. */
  readonly held: boolean;
  /** Takes the lock unless another holds it; true while this one holds it. */
  tryAcquire(): Promise<boolean>;
  release(): Promise<void>;
}

/**
 * A Postgres session-level advisory lock on a session of its own (see LockSession): held while
 * that session lives and answers its heartbeats, so the death or silence of the holding process
 * frees it for a standby, and the holder stops before the standby can start. One process at a
 * time runs each reaction, and drives a reconciler's open work, under one.
 */
export class AdvisoryLock implements ExclusiveLock {
  private session: LockSession | null = null;

  constructor(
    private readonly databaseUrl: string,
    /** The lock's key (hashed by Postgres). */
    private readonly name: string,
    /** How the holding session shows in pg_stat_activity. */
    private readonly applicationName: string,
    /** Called when the lock is lost (its session ended or fell silent): its work must stop. */
    private readonly onLost: () => void = () => undefined,
    private readonly timing: LockTiming = defaultLockTiming,
  ) {}

  get held(): boolean {
    return this.session?.live === true;
  }

  assertHeld(): void {
    if (!this.held) throw new LockLost(this.name);
  }

  /** Takes the lock unless another session holds it; true while this one holds it. */
  async tryAcquire(): Promise<boolean> {
    if (this.session) return this.held;
    const session: LockSession = await LockSession.open(
      this.databaseUrl,
      this.applicationName,
      this.timing,
      () => {
        if (this.session !== session) return;
        this.session = null;
        this.onLost();
      },
    );
    try {
      const result = await session.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_lock(hashtext($1)) AS locked',
        [this.name],
      );
      if (!result.rows[0]?.locked) {
        await session.close();
        return false;
      }
    } catch (error) {
      await session.close();
      throw error;
    }
    if (!session.live) {
      await session.close();
      return false;
    }
    this.session = session;
    return true;
  }

  async release(): Promise<void> {
    const session = this.session;
    this.session = null;
    await session?.close();
  }
}
