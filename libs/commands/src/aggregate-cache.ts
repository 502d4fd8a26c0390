import { estimatedSize } from './estimated-size';

/** What one aggregate looked like at a version, as the runner last saw it. */
export interface CachedAggregate<S> {
  state: S;
  version: number;
  /** Command ids already stored on this subject, so an idempotent retry finds its commit. */
  commands: Map<string, number>;
  /** Commits folded since the aggregate's last snapshot (written or loaded), so one is taken every K. */
  sinceSnapshot: number;
  /**
   * Commits on the subject through `version`: compared with the server's per-subject count, it
   * says how many came after without reading the stream past the last of them. Null when not
   * known (loaded from a snapshot written before snapshots kept it).
   */
  commits: number | null;
}

export interface AggregateCacheBounds {
  /** Most aggregates kept. */
  maxEntries: number;
  /** Most estimated heap bytes kept: aggregates differ in size by orders of magnitude. */
  maxBytes: number;
}

/** A command id (a UUID string, often still a concatenation) with its sequence, as a Map entry holds them. */
const bytesPerCommand = 40 + 56 + 32;

/**
 * A least-recently-used map of folded aggregates, bounded by count and by estimated bytes. It
 * may be stale when other processes write; the expected-sequence check on append is what keeps
 * decisions honest.
 */
export class AggregateCache<S> {
  private readonly entries = new Map<string, { aggregate: CachedAggregate<S>; bytes: number }>();
  private totalBytes = 0;

  constructor(private readonly bounds: AggregateCacheBounds) {}

  get(subject: string): CachedAggregate<S> | undefined {
    const entry = this.entries.get(subject);
    if (!entry) return undefined;
    this.entries.delete(subject);
    this.entries.set(subject, entry);
    return entry.aggregate;
  }

  set(subject: string, aggregate: CachedAggregate<S>): void {
    this.delete(subject);
    const bytes =
      64 + 2 * subject.length + estimatedSize(aggregate.state) + aggregate.commands.size * bytesPerCommand;
    // One aggregate past the whole budget would empty the cache for nothing: it is loaded each time.
    if (bytes > this.bounds.maxBytes) return;
    this.entries.set(subject, { aggregate, bytes });
    this.totalBytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.bounds.maxEntries && this.totalBytes <= this.bounds.maxBytes) break;
      this.entries.delete(oldest);
      this.totalBytes -= entry.bytes;
    }
  }

  delete(subject: string): void {
    const entry = this.entries.get(subject);
    if (!entry) return;
    this.entries.delete(subject);
    this.totalBytes -= entry.bytes;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The estimated heap bytes of the aggregates kept. */
  get bytes(): number {
    return this.totalBytes;
  }
}
