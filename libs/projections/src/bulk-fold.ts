import { RecordedEvent } from '@shop/contracts';

export type Row = Record<string, unknown>;

/**
 * A projection built from nothing in one pass, in memory: a rebuild into a fresh schema folds
 * the whole stream here and writes each table once (COPY), instead of loading and upserting
 * the rows a batch touches, batch after batch. It holds every row of the read model until then.
 */
export interface BulkFold {
  /**
   * Events in stream order. Must end with the rows `apply` would leave had it been given every
   * event in one batch, and throw where `apply` would fail: the rebuild then goes the batch way,
   * which parks what cannot be applied.
   */
  add(events: readonly RecordedEvent[]): void;
  /** Every table the projection owns, with its rows once all events are added. */
  tables(): readonly FoldedTable[];
}

/** A table's name and rows, as a bulk fold leaves them. */
export interface FoldedTable {
  readonly name: string;
  values(): Iterable<Row>;
}

/** A table's rows in memory by key, and by owner (e.g. user_id) when it is erased by owner. */
export class BulkTable<R extends Row> implements FoldedTable {
  private readonly rows = new Map<string, R>();
  private readonly keysByOwner = new Map<unknown, Set<string>>();

  constructor(
    readonly name: string,
    private readonly ownerColumn?: keyof R & string,
  ) {}

  get(key: string): R | undefined {
    return this.rows.get(key);
  }

  has(key: string): boolean {
    return this.rows.has(key);
  }

  set(key: string, row: R): void {
    const previous = this.rows.get(key);
    this.rows.set(key, row);
    if (this.ownerColumn === undefined) return;
    const owner = row[this.ownerColumn];
    if (previous !== undefined) {
      if (previous[this.ownerColumn] === owner) return;
      this.keysByOwner.get(previous[this.ownerColumn])?.delete(key);
    }
    let keys = this.keysByOwner.get(owner);
    if (!keys) this.keysByOwner.set(owner, (keys = new Set()));
    keys.add(key);
  }

  delete(key: string): void {
    const previous = this.rows.get(key);
    if (previous === undefined) return;
    this.rows.delete(key);
    if (this.ownerColumn !== undefined) this.keysByOwner.get(previous[this.ownerColumn])?.delete(key);
  }

  /** Keys of the rows whose owner column holds `owner`; needs the owner column. */
  keysOwnedBy(owner: unknown): string[] {
    if (this.ownerColumn === undefined) throw new Error(`${this.name} is not kept by owner`);
    return [...(this.keysByOwner.get(owner) ?? [])];
  }

  deleteOwnedBy(owner: unknown): void {
    for (const key of this.keysOwnedBy(owner)) this.delete(key);
  }

  values(): IterableIterator<R> {
    return this.rows.values();
  }

  get size(): number {
    return this.rows.size;
  }
}
