import { sql } from 'kysely';
import { RecordedEvent } from '@shop/contracts';
import { EventStore, RawCommit } from '@shop/eventstore';
import { BatchItem } from './batch-applier';
import { BulkFold } from './bulk-fold';
import { copyRows } from './copy-rows';
import { decodeBatchItems } from './decode-batch-items';
import { AnyKysely, AnyProjection } from './projection';

export interface BulkRebuildOptions {
  store: EventStore;
  /** A freshly migrated schema: its projection tables are empty. */
  db: AnyKysely;
  schema: string;
  /** Projections that have a bulk fold. */
  projections: readonly AnyProjection[];
  until: number;
  onProgress?: (sequence: number, last: number) => void;
  /** Messages decoded at once: their data keys load in one round trip. */
  decodeBatch?: number;
}

/**
 * Folds the stream up to `until` in memory, then writes every table once with COPY and the
 * checkpoints at the last message read. Memory holds the rows of the read model, not the events.
 * Throws on a message that cannot be decoded or folded (before writing anything) and when a
 * COPY fails; the caller then starts again from a fresh schema the batch way, which parks such
 * messages.
 */
export async function rebuildInBulk(options: BulkRebuildOptions): Promise<{ events: number }> {
  const { store, db, schema, projections, until, decodeBatch = 2000 } = options;
  const folds: BulkFold[] = projections.map((p) => {
    if (!p.bulk) throw new Error(`${p.name} has no bulk fold`);
    return p.bulk();
  });
  // A fold is given only the aggregates its projection reads (all of them, by contract).
  const foldsReading = new Map<string, number[]>();
  projections.forEach((p, i) => {
    for (const aggregate of new Set<string>(p.aggregates)) {
      const readers = foldsReading.get(aggregate) ?? [];
      readers.push(i);
      foldsReading.set(aggregate, readers);
    }
  });
  let position = 0;
  let events = 0;
  const fold = (items: readonly BatchItem[]) => {
    const batches: RecordedEvent[][] = folds.map(() => []);
    for (const item of items) {
      if (item.events === null) throw new Error(`message ${item.sequence}: ${item.decodeError}`);
      for (const event of item.events) {
        for (const i of foldsReading.get(event.aggregate) ?? []) batches[i]!.push(event);
        events++;
      }
      position = item.sequence;
    }
    folds.forEach((f, i) => f.add(batches[i]!));
    options.onProgress?.(position, until);
  };
  // A replay: the append validated these events, so only their shape is checked again.
  const decode = (raws: readonly RawCommit[]) => {
    const decoding = decodeBatchItems(store, raws, 'trusted');
    // Awaited in turn below; until then a failure must not count as unhandled.
    decoding.catch(() => undefined);
    return decoding;
  };
  // One batch decodes (its keys load) while the next is read; batches fold in stream order.
  let decoding: Promise<BatchItem[]> | null = null;
  let raws: RawCommit[] = [];
  for await (const message of store.readRaw(1, until)) {
    raws.push(message);
    if (raws.length < decodeBatch) continue;
    if (decoding) fold(await decoding);
    decoding = decode(raws);
    raws = [];
  }
  if (decoding) fold(await decoding);
  if (raws.length > 0) fold(await decode(raws));

  // Tables are disjoint, so they load side by side, each on its own connection.
  await Promise.all(
    folds.flatMap((f) => f.tables()).map((table) => copyRows(db, schema, table.name, table.values())),
  );
  await db
    .withSchema(schema)
    .insertInto('projection_checkpoints')
    .values(projections.map((p) => ({ projection: p.name, position })))
    .onConflict((oc) => oc.column('projection').doUpdateSet({ position, updated_at: sql`now()` }))
    .execute();
  return { events };
}
