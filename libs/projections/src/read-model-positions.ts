import type { AggregateName } from '@shop/contracts';
import { ConsistencyPositions } from './consistency-token';
import { PositionTracker } from './position-tracker';

/**
 * Which projections read each aggregate, and the bounded waits until they have applied a
 * position: a command's own write (read-your-writes), or the writes a client's consistency
 * token names.
 */
export class ReadModelPositions {
  constructor(
    private readonly tracker: PositionTracker,
    private readonly projections: readonly { name: string; aggregates: readonly AggregateName[] }[],
    private readonly readYourWritesTimeoutMs: number,
  ) {}

  reads(aggregate: AggregateName): boolean {
    return this.readersOf(aggregate).length > 0;
  }

  /** Waits (bounded, like a command) until the read models of `aggregate` have applied `sequence`. */
  waitReadable(aggregate: AggregateName, sequence: number): Promise<boolean> {
    return this.tracker.waitFor(this.readersOf(aggregate), sequence, this.readYourWritesTimeoutMs);
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

  private readersOf(aggregate: AggregateName): string[] {
    return this.projections.filter((p) => p.aggregates.includes(aggregate)).map((p) => p.name);
  }
}
