import { RecordedEvent } from '@shop/contracts';
import type { MemwalMemoryStore } from '@shop/memory';
import { Reaction } from '@shop/reactions';

/**
 * With MemWal as the memory store, a closed account's memories live outside the stream, where
 * destroying the user's data key does not reach them: its namespace is forgotten at the relayer.
 * Forgetting is idempotent, so the runner's retries and redeliveries are harmless.
 */
export class MemwalErasureReaction implements Reaction {
  readonly name = 'memwal-erasure';
  readonly aggregate = 'user' as const;
  readonly eventTypes = ['AccountClosed'];

  constructor(private readonly memwal: MemwalMemoryStore) {}

  async handle(event: RecordedEvent): Promise<void> {
    await this.memwal.forget(event.aggregateId);
  }
}
