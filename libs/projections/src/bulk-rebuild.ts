import { sql } from 'kysely';
import { RecordedEvent } from '@shop/contracts';
import { EventStore, RawCommit } from '@shop/eventstore';
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
}

/** Messages decoded at once: their data keys load in one round trip. */
const decodeBatch = 2000;

/**
 * Folds the stream up to `until` in memory, then writes every table once with COPY and the
 * checkpoints at the last message read. Memory holds the rows of the read model, not the events.
 * Throws on a message that cannot be decoded or folded (before writing anything) and when a
 * COPY fails; the caller then starts again from a fresh schema the batch way, which parks such
 * messages.
 */
export async function rebuildInBulk(options: BulkRebuildOptions): Promise<{ events: number }> {
  const { store, db, schema, projections, until } = options;
  const folds: BulkFold[] = projections.map((p) => {
    if (!p.bulk) throw new Error(`${p.name} has no bulk fold`);
    return p.bulk();
  });
  const readBy = projections.map((p) => new Set<string>(p.aggregates));
  let position = 0;
  let events = 0;
  let raws: RawCommit[] = [];
  const foldBatch = async () => {
    const batch: RecordedEvent[] = [];
    // A replay: the append validated these events, so only their shape is checked again.
    for (const item of await decodeBatchItems(store, raws, 'trusted')) {
      if (item.events === null) throw new Error(`message ${item.sequence}: ${item.decodeError}`);
      for (const event of item.events) batch.push(event);
      position = item.sequence;
    }
    raws = [];
    // A fold is given only the aggregates its projection reads (all of them, by contract).
    folds.forEach((f, i) => f.add(batch.filter((e) => readBy[i]!.has(e.aggregate))));
    events += batch.length;
    options.onProgress?.(position, until);
  };
  for await (const message of store.readRaw(1, until)) {
    raws.push(message);
    if (raws.length >= decodeBatch) await foldBatch();
  }
  if (raws.length > 0) await foldBatch();

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
