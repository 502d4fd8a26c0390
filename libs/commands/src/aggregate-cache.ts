/** What one aggregate looked like at a version, as the runner last saw it. */
export interface CachedAggregate<S> {
  state: S;
  version: number;
  /** Command ids already stored on this subject, so an idempotent retry finds its commit. */
  commands: Map<string, number>;
}

/**
 * A bounded least-recently-used map of folded aggregates. It may be stale when other
 * processes write; the expected-sequence check on append is what keeps decisions honest.
 */
export class AggregateCache<S> {
  private readonly entries = new Map<string, CachedAggregate<S>>();

  constructor(private readonly capacity = 10_000) {}

  get(subject: string): CachedAggregate<S> | undefined {
    const entry = this.entries.get(subject);
    if (entry) {
      this.entries.delete(subject);
      this.entries.set(subject, entry);
    }
    return entry;
  }

  set(subject: string, entry: CachedAggregate<S>): void {
    this.entries.delete(subject);
    this.entries.set(subject, entry);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  delete(subject: string): void {
    this.entries.delete(subject);
  }

  get size(): number {
    return this.entries.size;
  }
}
