import { sql } from 'kysely';
import { LiveRebuildResult, LiveSwapOptions, rebuildAgainstLive } from '@shop/projections';
import { ReadModelProjection, readModelMigrations } from '@shop/read-models';
import { ReplayCommand } from './cli-options';
import { ReplayContext, selectProjections, unitsOf } from './replay-context';
import { derivedSchema, timeStamp } from './schema-names';
import { comparisonSummary, phaseSummary } from './summary';
import { duration } from './format';

type RebuildCommand = Extract<ReplayCommand, { name: 'rebuild' }>;
type VerifyCommand = Extract<ReplayCommand, { name: 'verify' }>;

/** `replay rebuild`: rebuild beside the live read model, compare at one position, swap. */
export async function rebuildCommand(ctx: ReplayContext, command: RebuildCommand): Promise<number> {
  const picked = selectProjections(ctx.projections, command.projections);
  const wholeSchema = picked.length === ctx.projections.length;
  const projections = unitsOf(ctx, picked);
  const stamp = timeStamp(ctx.now());
  const scratch = derivedSchema(ctx.liveSchema, 'rebuild', stamp);
  const aside = derivedSchema(ctx.liveSchema, 'old', stamp);
  const swap: LiveSwapOptions = { wholeSchema, asideSchema: aside, force: command.force };
  const result = await againstLive(ctx, projections, scratch, command.batchSize, swap);

  if (!result.swapped) {
    ctx.print(
      `Tables differ (${differing(result)}): nothing swapped; the live read model is unchanged.\n` +
        `The rebuild is kept for inspection in ${scratch}; drop it with: DROP SCHEMA ${scratch} CASCADE;`,
    );
    return 1;
  }
  if (!result.equal) ctx.print(`Swapped despite differences (--force): ${differing(result)}.`);
  ctx.print(
    wholeSchema
      ? `Swapped schema ${scratch} in as ${ctx.liveSchema}; the previous one is now ${aside}.`
      : `Swapped the tables of ${names(picked)} into ${ctx.liveSchema}; the previous ones are in ${aside}.`,
  );
  if (command.dropOld) {
    await sql`DROP SCHEMA ${sql.id(aside)} CASCADE`.execute(ctx.db);
    ctx.print(`Dropped ${aside}.`);
  } else ctx.print(`Drop it once you no longer need it: DROP SCHEMA ${aside} CASCADE;`);
  return 0;
}

/** `replay verify`: the same rebuild and comparison, never swapped, scratch schema dropped. */
export async function verifyCommand(ctx: ReplayContext, command: VerifyCommand): Promise<number> {
  const projections = unitsOf(ctx, selectProjections(ctx.projections, command.projections));
  const scratch = derivedSchema(ctx.liveSchema, 'verify', timeStamp(ctx.now()));
  const result = await againstLive(ctx, projections, scratch, command.batchSize);
  ctx.print(
    result.equal
      ? `Verified: the live read model equals a rebuild from the stream.`
      : `Tables differ: ${differing(result)}.`,
  );
  return result.equal ? 0 : 1;
}

async function againstLive(
  ctx: ReplayContext,
  projections: readonly ReadModelProjection[],
  scratch: string,
  batchSize: number,
  swap?: LiveSwapOptions,
): Promise<LiveRebuildResult> {
  ctx.progress.log(`Rebuilding ${names(projections)} into ${scratch}; live: ${ctx.liveSchema}.`);
  const result = await rebuildAgainstLive({
    store: ctx.store,
    db: ctx.db,
    liveSchema: ctx.liveSchema,
    scratchSchema: scratch,
    projections,
    migrations: readModelMigrations,
    batchSize,
    swap,
    onPhase: (phase) => ctx.progress.phase(phase),
    onProgress: (_, progress) => ctx.progress.update(progress),
  });
  const phases = ctx.progress.finish();
  ctx.print(phaseSummary(phases));
  ctx.print('');
  ctx.print(
    `Compared at stream position ${positions(result)}; live projections paused ${duration(result.pausedMs)}.`,
  );
  ctx.print(comparisonSummary(result.tables));
  ctx.print('');
  return result;
}

function names(projections: readonly ReadModelProjection[]): string {
  return projections.map((p) => p.name).join(', ');
}

function differing(result: LiveRebuildResult): string {
  return result.tables
    .filter((t) => !t.equal)
    .map((t) => t.table)
    .join(', ');
}

/** One number when every projection was at the same place, as they are on a live system. */
function positions(result: LiveRebuildResult): string {
  const distinct = new Set(result.positions.values());
  if (distinct.size === 1) return String([...distinct][0]);
  return [...result.positions].map(([name, at]) => `${name} ${at}`).join(', ');
}
