import type { AggregateName } from '@shop/contracts';
import { inSpan } from '@shop/tracing';
import { ConsistencyPositions } from './consistency-token';
import { PositionTracker } from './position-tracker';

/** One command's wait for its own commit, as the write-to-readable metrics and the consistency token see it. */
export interface CommitWait {
  aggregate: AggregateName;
  /** The commit's stream sequence. */
  sequence: number;
  /** From the append's acknowledgement until the commit was readable, or until the wait gave up. */
  seconds: number;
  /** False when the wait timed out and the caller was answered before its write was readable. */
  readable: boolean;
}

/**
 * Which projections read each aggregate, and the bounded waits until they have applied a
 * position: a command's own write (read-your-writes), or the writes a client's consistency
 * token names.
 */
export class ReadModelPositions {
  private readonly commitWaitListeners = new Set<(wait: CommitWait) => void>();

  constructor(
    private readonly tracker: PositionTracker,
    private readonly projections: readonly { name: string; aggregates: readonly AggregateName[] }[],
    private readonly readYourWritesTimeoutMs: number,
  ) {}

  /** Waits (bounded, like a command) until the read models of `aggregate` have applied `sequence`. */
  waitReadable(aggregate: AggregateName, sequence: number): Promise<boolean> {
    return this.tracedWait(aggregate, sequence, this.readersOf(aggregate));
  }

  /**
   * A command's wait for the commit it has just appended: timed from here, which is the append's
   * acknowledgement, and reported to the listeners when a read model reads `aggregate`.
   */
  async waitForCommit(aggregate: AggregateName, sequence: number): Promise<boolean> {
    const readers = this.readersOf(aggregate);
    const appendedAt = performance.now();
    const readable = await this.tracedWait(aggregate, sequence, readers);
    if (readers.length === 0) return readable;
    const seconds = (performance.now() - appendedAt) / 1000;
    for (const listener of this.commitWaitListeners) listener({ aggregate, sequence, seconds, readable });
    return readable;
  }

  /** Reports every command's wait for its own commit (metrics, consistency token). Returns the way to stop. */
  onCommitWait(listener: (wait: CommitWait) => void): () => void {
    this.commitWaitListeners.add(listener);
    return () => this.commitWaitListeners.delete(listener);
  }

  /**
   * Waits (bounded) until every projection reading each aggregate has applied its position: a
   * read that must see writes answered before they were readable. False when the wait timed out.
   */
  async waitUntilReadable(positions: ConsistencyPositions, timeoutMs: number): Promise<boolean> {
    const waits = [...positions].map(([aggregate, sequence]) =>
      this.tracker.waitFor(this.readersOf(aggregate), sequence, timeoutMs),
    );
    return (await Promise.all(waits)).every(Boolean);
  }

  /** The read-your-writes wait as a span of the command's trace; a timeout is an event naming the laggards. */
  private tracedWait(aggregate: AggregateName, sequence: number, readers: string[]): Promise<boolean> {
    if (readers.length === 0) return this.tracker.waitFor(readers, sequence, this.readYourWritesTimeoutMs);
    const attributes = { 'shop.aggregate': aggregate, 'messaging.nats.stream.sequence': sequence };
    return inSpan('read-your-writes wait', { attributes }, async (span) => {
      const readable = await this.tracker.waitFor(readers, sequence, this.readYourWritesTimeoutMs);
      if (!readable) {
        span.addEvent('timed out', {
          reason: `${readers.join(', ')} had not applied ${sequence} within ${this.readYourWritesTimeoutMs} ms`,
        });
      }
      return readable;
    });
  }

  private readersOf(aggregate: AggregateName): string[] {
    return this.projections.filter((p) => p.aggregates.includes(aggregate)).map((p) => p.name);
  }
}
