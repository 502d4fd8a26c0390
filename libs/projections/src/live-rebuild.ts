import { Migration, sql } from 'kysely';
import { EventStore } from '@shop/eventstore';
import { withProjectionsPaused } from './live-pause';
import { AnyKysely, AnyProjection } from './projection';
import { wholeNameOf } from './projection-partitions';
import { swapProjectionTables, swapSchema } from './read-model-swap';
import { recreateSchema } from './rebuild';
import { CatchUpProgress, catchUpProjections } from './stream-catch-up';
import { compareTables, TableComparison } from './table-comparison';

export type RebuildPhase = 'rebuild' | 'catch-up' | 'align';

export interface LiveSwapOptions {
  /** Every projection of the live schema is rebuilt: rename schemas instead of moving tables. */
  wholeSchema: boolean;
  /** Receives the replaced schema or tables; must not exist yet. */
  asideSchema: string;
  /** Swap even when tables differ: the way to replace a live read model known to be wrong. */
  force?: boolean;
}

export interface LiveRebuildOptions {
  store: EventStore;
  /** At least three connections: one holds the pause while the others write and compare. */
  db: AnyKysely;
  liveSchema: string;
  /** Created here; it must not exist yet. */
  scratchSchema: string;
  projections: readonly AnyProjection[];
  /** The schema's migrations. */
  migrations: Record<string, Migration>;
  batchSize?: number;
  maxAttempts?: number;
  /** Without it the rebuild is compared with the live read model, never swapped, and dropped. */
  swap?: LiveSwapOptions;
  /** Awaited, so a caller can act as a phase starts, e.g. while the live projections are paused (align). */
  onPhase?: (phase: RebuildPhase) => void | Promise<void>;
  onProgress?: (phase: RebuildPhase, progress: CatchUpProgress) => void;
}

export interface LiveRebuildResult {
  /** Per projection, the stream position at which the rebuild was compared (and swapped). */
  positions: Map<string, number>;
  tables: TableComparison[];
  equal: boolean;
  swapped: boolean;
  /** How long the live projections were paused: align, compare and swap. */
  pausedMs: number;
  messages: number;
  events: number;
}

/** Past this many rounds the live read model outruns the rebuild; the pause covers the rest. */
const maxCatchUpRounds = 10;

/**
 * Rebuilds projections from sequence 1 into a scratch schema while the live one keeps serving,
 * then compares them and, when asked, swaps the rebuild in.
 *
 * The rebuild follows the live checkpoints, never the stream's end, so it can never be ahead of
 * the live read model. Once the remaining gap fits one batch, the live projections are paused
 * (see withProjectionsPaused), the rebuild is brought to exactly the live checkpoints, the
 * tables are compared at that one position, and the swap runs in the pausing transaction. The
 * swapped-in checkpoints therefore equal those the live runners hold in memory: a runner's next
 * batch continues from them without noticing. Were they ever to differ, that batch would find
 * its checkpoint row moved (CheckpointMovedError) and the runner would restart from the row.
 *
 * A rebuild may partition a projection otherwise than the live one (a change of
 * STREAM_PARTITIONS): each of its partitions then follows the furthest live row of the other
 * partitioning, and the swap replaces those rows by its own. The live rows of the other
 * partitioning stand still (their runners are stopped, or refuse to apply beside the new ones);
 * when they stand at different positions, the comparison cannot be fair and the swap needs
 * `force`, though the rebuild is exact at its position.
 */
export async function rebuildAgainstLive(options: LiveRebuildOptions): Promise<LiveRebuildResult> {
  const { store, db, liveSchema, scratchSchema, projections, swap } = options;
  const batchSize = options.batchSize ?? 5000;
  if (!(await schemaExists(db, liveSchema))) throw new Error(`live schema ${liveSchema} does not exist`);
  if (await schemaExists(db, scratchSchema)) throw new Error(`schema ${scratchSchema} exists already`);

  let messages = 0;
  let events = 0;
  const catchUp = async (phase: RebuildPhase, until: ReadonlyMap<string, number>) => {
    await options.onPhase?.(phase);
    const result = await catchUpProjections({
      store,
      db,
      schema: scratchSchema,
      projections,
      until,
      batchSize,
      maxAttempts: options.maxAttempts,
      onProgress: (progress) => options.onProgress?.(phase, progress),
    });
    messages += result.messages;
    events += result.events;
    return result.positions;
  };

  try {
    await recreateSchema(db, scratchSchema, options.migrations);
    const targets = async () => targetsOf(projections, await liveCheckpoints(db, liveSchema));
    let positions = await catchUp('rebuild', await targets());
    for (let round = 0; round < maxCatchUpRounds; round++) {
      const live = await targets();
      if (gap(projections, positions, live) <= batchSize) break;
      positions = await catchUp('catch-up', live);
    }

    let pausedAt = 0;
    const outcome = await withProjectionsPaused(db, liveSchema, async ({ trx, positions: rows }) => {
      pausedAt = performance.now();
      const live = targetsOf(projections, rows);
      positions = await catchUp('align', live);
      for (const p of projections) {
        const at = live.get(p.name) ?? 0;
        // Only a live checkpoint moved back by hand can get here; a comparison would not be fair.
        if (positions.get(p.name) !== at)
          throw new Error(`rebuild of ${p.name} is at ${positions.get(p.name)}, the live one at ${at}`);
      }
      // The partitions of a projection share its tables.
      const tables = await compareTables(db, liveSchema, scratchSchema, [
        ...new Set(projections.flatMap((p) => p.tables)),
      ]);
      const equal = tables.every((t) => t.equal);
      if (!swap || !(equal || swap.force)) return { tables, equal, swapped: false };
      const schemas = { live: liveSchema, rebuilt: scratchSchema, aside: swap.asideSchema };
      if (swap.wholeSchema) {
        const wholes = new Set(projections.map((p) => wholeNameOf(p.name)));
        const unknown = [...rows.keys()].filter((name) => !wholes.has(wholeNameOf(name)));
        if (unknown.length > 0)
          throw new Error(
            `the live schema has projections this replay does not know (${unknown.join(', ')}); ` +
              'run the replay of the same version as the projector',
          );
        await swapSchema(trx, schemas);
      } else await swapProjectionTables(trx, schemas, projections);
      return { tables, equal, swapped: true };
    });
    const pausedMs = performance.now() - pausedAt;

    // Kept only when a requested swap was refused, for a look at what differs.
    if (!swap || (outcome.swapped && !swap.wholeSchema)) await dropSchema(db, scratchSchema);
    return { positions, ...outcome, pausedMs, messages, events };
  } catch (error) {
    await dropSchema(db, scratchSchema).catch(() => undefined);
    throw error;
  }
}

async function liveCheckpoints(db: AnyKysely, schema: string): Promise<Map<string, number>> {
  const rows = await db
    .withSchema(schema)
    .selectFrom('projection_checkpoints')
    .select(['projection', 'position'])
    .execute();
  return new Map(rows.map((r) => [r.projection as string, Number(r.position)]));
}

/**
 * The live position each rebuilt unit must reach: its own live row's, or, when the live read
 * model partitions its projection otherwise, the furthest row of that partitioning (0 for none).
 */
function targetsOf(
  projections: readonly AnyProjection[],
  live: ReadonlyMap<string, number>,
): Map<string, number> {
  return new Map(
    projections.map((p) => {
      const own = live.get(p.name);
      if (own !== undefined) return [p.name, own];
      const whole = wholeNameOf(p.name);
      const others = [...live].filter(([name]) => wholeNameOf(name) === whole).map(([, at]) => at);
      return [p.name, Math.max(0, ...others)];
    }),
  );
}

function gap(
  projections: readonly AnyProjection[],
  positions: ReadonlyMap<string, number>,
  live: ReadonlyMap<string, number>,
): number {
  return projections.reduce(
    (sum, p) => sum + Math.max(0, (live.get(p.name) ?? 0) - (positions.get(p.name) ?? 0)),
    0,
  );
}

async function schemaExists(db: AnyKysely, schema: string): Promise<boolean> {
  const { rows } = await sql`SELECT 1 FROM pg_namespace WHERE nspname = ${schema}`.execute(db);
  return rows.length > 0;
}

async function dropSchema(db: AnyKysely, schema: string): Promise<void> {
  await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db);
}
