import { Kysely, sql } from 'kysely';
import { RecordedEvent } from '@shop/contracts';
import { BulkFold, BulkTable, Row } from './bulk-fold';
import { AnyKysely } from './projection';
import { WriteMode, writeRows } from './write-rows';

export interface RowFoldSpec<R extends Row> {
  /** A table of whichever schema `db` is bound to. */
  table: string;
  key: keyof R & string;
  /** The row an event touches, or null when the event is not for this table. */
  keyOf(event: RecordedEvent): string | null;
  /** The row after the event: a row to upsert, null to delete it, or the same row for no change. */
  fold(row: R | undefined, event: RecordedEvent): R | null | undefined;
}

/**
 * The batch pattern for row-per-entity read models: one SELECT for every row the batch
 * touches, fold the events in memory in stream order, one DELETE and one multi-row upsert,
 * written as `mode` says.
 */
export async function applyRowFold<R extends Row>(
  db: AnyKysely,
  spec: RowFoldSpec<R>,
  events: readonly RecordedEvent[],
  mode: WriteMode = 'batch',
): Promise<void> {
  const keyOfEvent = events.map((event) => spec.keyOf(event));
  const keys = new Set<string>();
  for (const key of keyOfEvent) if (key !== null) keys.add(key);
  if (keys.size === 0) return;

  // The table is chosen at run time, so this one helper works on an untyped view of the schema.
  const untyped = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const keyColumn: string = spec.key;
  const existing = (await untyped
    .selectFrom(spec.table)
    .selectAll()
    // One array parameter rather than a bind parameter per key: the statement stays the same size.
    .where(keyColumn, '=', sql<string>`ANY(${[...keys]})`)
    .execute()) as R[];
  const rows = new Map<string, R | null>(existing.map((row) => [String(row[spec.key]), row]));
  const changed = new Set<string>();

  for (let i = 0; i < events.length; i++) {
    const key = keyOfEvent[i];
    if (key === null || key === undefined) continue;
    const after = nextRow(spec, rows.get(key) ?? undefined, events[i]!);
    if (after === undefined) continue;
    rows.set(key, after);
    changed.add(key);
  }

  const upserts: Row[] = [];
  const deletes: string[] = [];
  for (const key of changed) {
    const row = rows.get(key);
    if (row === null || row === undefined) deletes.push(key);
    else upserts.push(row);
  }

  if (deletes.length > 0) {
    await untyped
      .deleteFrom(spec.table)
      .where(keyColumn, '=', sql<string>`ANY(${deletes})`)
      .execute();
  }
  await writeRows(db, { table: spec.table, key: [keyColumn], onConflict: 'update' }, upserts, mode);
}

/** The same fold in memory, for a rebuild: `table` holds every row folded so far. */
export function foldRows<R extends Row>(
  spec: RowFoldSpec<R>,
  table: BulkTable<R>,
  events: readonly RecordedEvent[],
): void {
  for (const event of events) {
    const key = spec.keyOf(event);
    if (key === null) continue;
    const after = nextRow(spec, table.get(key), event);
    if (after === null) table.delete(key);
    else if (after !== undefined) table.set(key, after);
  }
}

/** The bulk fold of a projection that is one row fold. */
export function rowFoldBulk<R extends Row>(spec: RowFoldSpec<R>): BulkFold {
  const table = new BulkTable<R>(spec.table);
  return {
    add: (events) => foldRows(spec, table, events),
    tables: () => [table],
  };
}

/** The row after `event`: null to delete it, undefined when the event leaves it as it was. */
function nextRow<R extends Row>(
  spec: RowFoldSpec<R>,
  before: R | undefined,
  event: RecordedEvent,
): R | null | undefined {
  const after = spec.fold(before, event);
  return after === before ? undefined : after;
}
