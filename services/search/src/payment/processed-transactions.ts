import type { Redis } from '@shop/redis';

/** The spec's processed-hash window. */
const PROCESSED_TTL_SECONDS = 24 * 60 * 60;

/**
 * Marks of digests confirmed in the last 24 hours, so a repeat is answered without the lock.
 * Only a shortcut: without the mark (expired, or Redis lost) the event history still says
 * SUCCESS and nothing is verified or forwarded twice.
 */
export class ProcessedTransactions {
  constructor(
    private readonly redis: Redis,
    private readonly onUnavailable: (error: unknown) => void,
  ) {}

  async has(txHash: string): Promise<boolean> {
    try {
      return (await this.redis.exists(this.key(txHash))) === 1;
    } catch (error) {
      this.onUnavailable(error);
      return false;
    }
  }

  async mark(txHash: string): Promise<void> {
    await this.redis.set(this.key(txHash), '1', 'EX', PROCESSED_TTL_SECONDS).catch(this.onUnavailable);
  }

  private key(txHash: string): string {
    return `tx_processed:${txHash}`;
  }
}
