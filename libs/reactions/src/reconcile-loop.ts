import type { Logger } from '@shop/logging';

/** Items of open work driven per round; the rest wait for the next one. */
const BATCH = 100;

export interface ReconcileLoopOptions<K> {
  /** What the work is, for the logs ("deposit claims", "pending payments"). */
  what: string;
  intervalMs: number;
  logger: Logger;
  /** Keys of open work last touched before `touchedBefore`, oldest first, at most `limit`. */
  stale(touchedBefore: Date, limit: number): Promise<K[]>;
  /** Drives one item towards its final state; a failure is retried next round. */
  drive(key: K): Promise<void>;
}

/**
 * The loop of a reconciler: every interval, each piece of open work not touched for a whole
 * interval (its process crashed, or its retries ran out) is driven again, one round at a time.
 */
export class ReconcileLoop<K> {
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> | null = null;

  constructor(private readonly options: ReconcileLoopOptions<K>) {}

  start(): void {
    this.timer = setInterval(() => {
      this.round ??= this.reconcile().finally(() => (this.round = null));
    }, this.options.intervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.round;
  }

  private async reconcile(): Promise<void> {
    const { what, intervalMs, logger } = this.options;
    let keys: K[];
    try {
      keys = await this.options.stale(new Date(Date.now() - intervalMs), BATCH);
    } catch (error) {
      logger.warn({ err: error }, `could not list open ${what}`);
      return;
    }
    for (const key of keys) {
      await this.options.drive(key).catch((error: unknown) => {
        logger.warn({ err: error, key }, `${what}: still open; retrying next round`);
      });
    }
  }
}
