import { Kysely, Migration, sql } from 'kysely';
import { migrateSchema } from '@shop/db';
import { EventStore } from '@shop/eventstore';
import { rebuildInBulk } from './bulk-rebuild';
import { AnyKysely, AnyProjection } from './projection';
import { catchUpProjections } from './stream-catch-up';
import { isTransientError } from './transient-error';

export interface RebuildOptions {
  store: EventStore;
  db: AnyKysely;
  schema: string;
  projections: readonly AnyProjection[];
  /** The schema's migrations. */
  migrations: Record<string, Migration>;
  /** Last stream sequence to apply; the stream's end when absent. */
  untilSequence?: number;
  batchSize?: number;
  /** Messages a bulk rebuild decodes at once (their data keys load in one round trip). */
  decodeBatch?: number;
  maxAttempts?: number;
  onProgress?: (sequence: number, last: number) => void;
}

export interface RebuildResult {
  schema: string;
  lastSequence: number;
  events: number;
  /** Why the projections with a bulk fold were rebuilt the batch way after all, when they were. */
  bulkFallback?: string;
}

/** Drops `schema` and migrates it afresh, so a rebuild starts from nothing but the stream. */
export async function recreateSchema(
  db: AnyKysely,
  schema: string,
  migrations: Record<string, Migration>,
): Promise<void> {
  await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db);
  await migrateSchema(db as Kysely<unknown>, schema, migrations);
}

/**
 * Builds the given projections from sequence 1 into a fresh schema. Those with a bulk fold fold
 * the whole stream in memory and COPY their tables once; the others go through the same batch
 * applier as the live projector. Either way a rebuilt read model is what the live one would be.
 * Should the stream hold a message a bulk fold cannot take, every projection is rebuilt the
 * batch way, which parks that message as the live projector did.
 */
export async function rebuildProjections(options: RebuildOptions): Promise<RebuildResult> {
  const { store, db, schema, onProgress } = options;
  await recreateSchema(db, schema, options.migrations);
  const last = options.untilSequence ?? (await store.lastStreamSequence());
  let batched = options.projections.filter((p) => !p.bulk);
  let events = 0;
  let bulkFallback: string | undefined;
  const inBulk = options.projections.filter((p) => p.bulk);
  if (inBulk.length > 0) {
    try {
      ({ events } = await rebuildInBulk({
        store,
        db,
        schema,
        projections: inBulk,
        until: last,
        onProgress,
        decodeBatch: options.decodeBatch,
      }));
    } catch (error) {
      if (isTransientError(error)) throw error;
      bulkFallback = error instanceof Error ? error.message : String(error);
      await recreateSchema(db, schema, options.migrations);
      batched = [...options.projections];
    }
  }
  if (batched.length > 0) {
    ({ events } = await catchUpProjections({
      store,
      db,
      schema,
      projections: batched,
      until: last,
      // A fresh schema nobody reads: bigger batches fold more events per row written, and spend
      // fewer transactions and row loads (a row spans batches when its entity's events do).
      batchSize: options.batchSize ?? 10_000,
      maxAttempts: options.maxAttempts,
      onProgress: onProgress && ((p) => onProgress(p.sequence, p.until)),
    }));
  }
  return { schema, lastSequence: last, events, ...(bulkFallback ? { bulkFallback } : {}) };
}
