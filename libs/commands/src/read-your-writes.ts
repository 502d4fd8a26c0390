import type { AggregateName } from '@shop/contracts';

/**
 * What the write side is given to wait until its commits are readable: the read side knows
 * which read models read an aggregate and how far each has got (ReadModelPositions).
 */
export interface ReadYourWrites {
  /**
   * Waits (bounded) until the read models of `aggregate` have applied the commit a command has
   * just appended at `sequence` to the instance `aggregateId`; false when it gave up. The read
   * side times this wait (the write-to-readable latency), so the write side measures nothing.
   * The id names the partition of partitioned read models; without it every partition is waited for.
   */
  waitForCommit(aggregate: AggregateName, sequence: number, aggregateId?: string): Promise<boolean>;
  /**
   * Waits (bounded) until the read models of `aggregate` (of its instance `aggregateId`, when
   * given) have applied `sequence`; false when it gave up.
   */
  waitReadable(aggregate: AggregateName, sequence: number, aggregateId?: string): Promise<boolean>;
}
