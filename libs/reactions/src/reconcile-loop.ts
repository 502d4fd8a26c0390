import type { Logger } from '@shop/logging';
import { AdvisoryLock } from './advisory-lock';
import { LockCheck, LockTiming, noLockCheck } from './lock-session';

/** Items of open work driven per round; the rest wait for the next one. */
const BATCH = 100;

export interface ReconcileLoopOptions<K> {
  /** What the work is, for the logs ("deposit claims", "pending payments"). */
  what: string;
  intervalMs: number;
  logger: Logger;
  /** Keys of open work last touched before `touchedBefore`, oldest first, at most `limit`. */
  stale(touchedBefore: Date, limit: number): Promise<K[]>;
  /**
   * Drives one item towards its final state; a failure is retried next round. An effect that
   * must not run twice at once (a provider call) checks `lock` right before it starts: the lock
   * may be lost mid-item.
   */
  drive(key: K, lock: LockCheck): Promise<void>;
  /**
   * Postgres of the session-level advisory lock that lets one process at a time drive this work,
   * as one runs each reaction: two processes driving one item at once would each call the
   * outside world for it. The others stand by and take over within an interval of its death
   * (of its silence: an interval after the server gives its session up, see LockSession).
   */
  singleHolder?: { databaseUrl: string; lockName: string; timing?: LockTiming };
}

/**
 * The loop of a reconciler: every interval, each piece of open work not touched for a whole
 * interval (its process crashed, or its retries ran out) is driven again, one round at a time.
 */
export class ReconcileLoop<K> {
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> | null = null;
  /** Null without `singleHolder`: every process then drives the work. */
  private readonly lock: AdvisoryLock | null;

  constructor(private readonly options: ReconcileLoopOptions<K>) {
    const holder = options.singleHolder;
    this.lock = holder
      ? new AdvisoryLock(
          holder.databaseUrl,
          holder.lockName,
          `lock:${holder.lockName}`,
          () => options.logger.warn({ lock: holder.lockName }, `lost the ${options.what} lock; stopping`),
          holder.timing,
        )
      : null;
  }

  start(): void {
    this.timer = setInterval(() => {
      this.round ??= this.reconcile().finally(() => (this.round = null));
    }, this.options.intervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.round;
    await this.lock?.release();
  }

  private async reconcile(): Promise<void> {
    const { what, intervalMs, logger } = this.options;
    if (!(await this.holdsLock())) return;
    let keys: K[];
    try {
      keys = await this.options.stale(new Date(Date.now() - intervalMs), BATCH);
    } catch (error) {
      logger.warn({ err: error }, `could not list open ${what}`);
      return;
    }
    for (const key of keys) {
      // The lock's connection may have died mid-round: another process may hold it now.
      if (!(await this.holdsLock())) return;
      await this.options.drive(key, this.lock ?? noLockCheck).catch((error: unknown) => {
        logger.warn({ err: error, key }, `${what}: still open; retrying next round`);
      });
    }
  }

  /** True while this process holds the lock (always, without one); tries to take it otherwise. */
  private async holdsLock(): Promise<boolean> {
    if (!this.lock) return true;
    try {
      return await this.lock.tryAcquire();
    } catch (error) {
      this.options.logger.warn({ err: error }, `could not take the ${this.options.what} lock`);
      return false;
    }
  }
}
