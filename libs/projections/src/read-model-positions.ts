import { AggregateName, partitionOf } from '@shop/contracts';
import { inSpan } from '@shop/tracing';
import { ConsistencyKey, consistencyKey, ConsistencyPositions, keyParts } from './consistency-token';
import { PositionTracker } from './position-tracker';
import { partitionName, partitionNames } from './projection-partitions';

/** One command's wait for its own commit, as the write-to-readable metrics and the consistency token see it. */
export interface CommitWait {
  aggregate: AggregateName;
  /** The commit's stream sequence. */
  sequence: number;
  /** The aggregate's partition, when the read models are partitioned and the command named its id. */
  partition?: number;
  /** From the append's acknowledgement until the commit was readable, or until the wait gave up. */
  seconds: number;
  /** False when the wait timed out and the caller was answered before its write was readable. */
  readable: boolean;
}

/** A projection as the waits see it: what it reads and whether it runs in partitions. */
export interface ProjectionReader {
  name: string;
  aggregates: readonly AggregateName[];
  partitioned?: boolean;
}

/**
 * Which projections read each aggregate, and the bounded waits until they have applied a
 * position: a command's own write (read-your-writes), or the writes a client's consistency
 * token names. With partitioned read models (`partitions` > 1) a write of a known aggregate id
 * waits for its own partition's units only: the others move past its sequence only lazily (a
 * runner writes and announces the position it skipped to within a second, see ProjectionRunner).
 */
export class ReadModelPositions {
  private readonly commitWaitListeners = new Set<(wait: CommitWait) => void>();

  constructor(
    private readonly tracker: PositionTracker,
    private readonly projections: readonly ProjectionReader[],
    private readonly readYourWritesTimeoutMs: number,
    private readonly partitions = 1,
  ) {}

  /**
   * Waits (bounded, like a command) until the read models of `aggregate` (of its instance
   * `aggregateId`, when given) have applied `sequence`.
   */
  waitReadable(aggregate: AggregateName, sequence: number, aggregateId?: string): Promise<boolean> {
    return this.tracedWait(aggregate, sequence, this.readersOf(aggregate, this.partitionOf(aggregateId)));
  }

  /**
   * A command's wait for the commit it has just appended to `aggregate` (its instance
   * `aggregateId`, when given): timed from here, which is the append's acknowledgement, and
   * reported to the listeners when a read model reads `aggregate`.
   */
  async waitForCommit(aggregate: AggregateName, sequence: number, aggregateId?: string): Promise<boolean> {
    const partition = this.partitionOf(aggregateId);
    const readers = this.readersOf(aggregate, partition);
    const appendedAt = performance.now();
    const readable = await this.tracedWait(aggregate, sequence, readers);
    if (readers.length === 0) return readable;
    const seconds = (performance.now() - appendedAt) / 1000;
    const wait: CommitWait = { aggregate, sequence, seconds, readable };
    if (partition !== undefined) wait.partition = partition;
    for (const listener of this.commitWaitListeners) listener(wait);
    return readable;
  }

  /** What a consistency token records a write of `aggregateId` under (its partition's key with N > 1). */
  keyOf(aggregate: AggregateName, aggregateId: string): ConsistencyKey {
    return consistencyKey(aggregate, this.partitionOf(aggregateId));
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
    const waits = [...positions].map(([key, sequence]) => {
      const { aggregate, partition } = keyParts(key);
      return this.tracker.waitFor(this.readersOf(aggregate, partition), sequence, timeoutMs);
    });
    return (await Promise.all(waits)).every(Boolean);
  }

  /**
   * The read-your-writes wait as a span of the command's trace; a timeout is an event naming the
   * laggards. Nothing inside looks for the active span, so it is not made active.
   */
  private tracedWait(aggregate: AggregateName, sequence: number, readers: string[]): Promise<boolean> {
    if (readers.length === 0) return this.tracker.waitFor(readers, sequence, this.readYourWritesTimeoutMs);
    const attributes = { 'shop.aggregate': aggregate, 'messaging.nats.stream.sequence': sequence };
    return inSpan(
      'read-your-writes wait',
      { attributes },
      async (span) => {
        const readable = await this.tracker.waitFor(readers, sequence, this.readYourWritesTimeoutMs);
        if (!readable) {
          span.addEvent('timed out', {
            reason: `${readers.join(', ')} had not applied ${sequence} within ${this.readYourWritesTimeoutMs} ms`,
          });
        }
        return readable;
      },
      { active: false },
    );
  }

  private partitionOf(aggregateId: string | undefined): number | undefined {
    return aggregateId === undefined || this.partitions === 1
      ? undefined
      : partitionOf(aggregateId, this.partitions);
  }

  /**
   * The units that apply `aggregate`: of a partitioned projection, the one of `partition`, or
   * every one when the partition is unknown (or out of range: a token from before a change of N).
   */
  private readersOf(aggregate: AggregateName, partition?: number): string[] {
    return this.projections
      .filter((p) => p.aggregates.includes(aggregate))
      .flatMap((p) => {
        if (!p.partitioned || this.partitions === 1) return [p.name];
        if (partition !== undefined && partition < this.partitions)
          return [partitionName(p.name, partition, this.partitions)];
        return partitionNames(p.name, this.partitions);
      });
  }
}
