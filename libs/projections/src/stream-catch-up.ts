import { EventStore, RawCommit } from '@shop/eventstore';
import { BatchApplier, BatchItem } from './batch-applier';
import { decodeBatchItems } from './decode-batch-items';
import { AnyKysely, AnyProjection } from './projection';

export interface CatchUpProgress {
  /** First stream sequence this catch-up reads. */
  from: number;
  /** Last stream sequence written. */
  sequence: number;
  /** Sequence this catch-up runs to. */
  until: number;
  /** Stream messages (commits) and events read so far. */
  messages: number;
  events: number;
}

export interface CatchUpOptions {
  store: EventStore;
  db: AnyKysely;
  /** A migrated schema; each projection continues from its checkpoint there. */
  schema: string;
  projections: readonly AnyProjection[];
  /** Last sequence to apply: one for all, or one per projection name (absent names stay put). */
  until: number | ReadonlyMap<string, number>;
  batchSize?: number;
  maxAttempts?: number;
  onProgress?: (progress: CatchUpProgress) => void;
}

export interface CatchUpResult {
  /** Checkpoint per projection name afterwards. */
  positions: Map<string, number>;
  messages: number;
  events: number;
}

/**
 * Brings projections in `schema` forward from their checkpoints, through the live projector's
 * batch applier, with one stream read shared by all of them. While one batch is written the
 * next is read and decoded, so the database and the decoding CPU work at the same time.
 */
export async function catchUpProjections(options: CatchUpOptions): Promise<CatchUpResult> {
  const { store, db, schema, projections, until } = options;
  const batchSize = options.batchSize ?? 2000;
  const targets = projections.map((p) => (typeof until === 'number' ? until : (until.get(p.name) ?? 0)));
  // Every caller catches up a schema that is not live yet (a rebuild, an inspection copy).
  const appliers = projections.map((p) => new BatchApplier(db, schema, p, options.maxAttempts ?? 3));
  const positions = await Promise.all(appliers.map((a) => a.checkpoint()));
  let messages = 0;
  let events = 0;
  const result = (): CatchUpResult => ({
    positions: new Map(projections.map((p, i) => [p.name, positions[i]!])),
    messages,
    events,
  });

  const from = Math.min(...positions.map((p, i) => (p < targets[i]! ? p : Infinity))) + 1;
  const last = Math.max(...targets);
  if (!Number.isFinite(from)) return result();

  // Projections write disjoint tables with their own checkpoints, so their transactions run side
  // by side on separate connections and Postgres can use every core.
  const write = async (batch: readonly BatchItem[], read: { messages: number; events: number }) => {
    await Promise.all(
      appliers.map(async (applier, i) => {
        const due = batch.filter((item) => item.sequence > positions[i]! && item.sequence <= targets[i]!);
        if (due.length > 0) positions[i] = (await applier.apply(due, positions[i]!)).checkpoint;
      }),
    );
    options.onProgress?.({ from, sequence: batch.at(-1)!.sequence, until: last, ...read });
  };

  let writing: Promise<void> = Promise.resolve();
  let raws: RawCommit[] = [];
  // Decoding a whole batch at once loads its data keys in one round trip.
  const decode = async (): Promise<BatchItem[]> => {
    // A replay: the append validated these events, so only their shape is checked again.
    const batch = await decodeBatchItems(store, raws, 'trusted');
    raws = [];
    messages += batch.length;
    for (const item of batch) events += item.events?.length ?? 0;
    return batch;
  };
  for await (const message of store.readRaw(from, last)) {
    raws.push(message);
    if (raws.length >= batchSize) {
      const batch = await decode();
      await writing;
      writing = write(batch, { messages, events });
      // Awaited before the next batch; this only keeps a failure from counting as unhandled meanwhile.
      writing.catch(() => undefined);
    }
  }
  await writing;
  if (raws.length > 0) await write(await decode(), { messages, events });
  return result();
}
