import { catchUpProjections, recreateSchema, sequenceAtTime, tableChecksums } from '@shop/projections';
import { readModelMigrations } from '@shop/read-models';
import { ReplayCommand, UsageError } from './cli-options';
import { ReplayContext, selectProjections, unitsOf } from './replay-context';
import { derivedSchema } from './schema-names';
import { phaseSummary, rowsSummary } from './summary';

type AtCommand = Extract<ReplayCommand, { name: 'at' }>;

/** `replay at`: the read model as it was at a sequence or time, in its own schema, never swapped. */
export async function atCommand(ctx: ReplayContext, command: AtCommand): Promise<number> {
  const { store, db } = ctx;
  const last = await store.lastStreamSequence();
  const until = command.until;
  const sequence = 'sequence' in until ? until.sequence : await sequenceAtTime(store, until.time);
  if (sequence > last) throw new UsageError(`--until ${sequence} is past the stream's end (${last})`);
  if ('time' in until)
    ctx.print(`${until.time.toISOString()} is stream sequence ${sequence} (last event at or before it).`);

  const projections = unitsOf(ctx, selectProjections(ctx.projections, command.projections));
  const schema = derivedSchema(ctx.liveSchema, 'at', String(sequence));
  ctx.progress.log(
    `Rebuilding ${projections.map((p) => p.name).join(', ')} up to ${sequence} into ${schema}.`,
  );
  // A schema of the same name holds the same sequence's state; it is rebuilt, not trusted.
  await recreateSchema(db, schema, readModelMigrations);
  ctx.progress.phase('rebuild');
  await catchUpProjections({
    store,
    db,
    schema,
    projections,
    until: sequence,
    batchSize: command.batchSize,
    onProgress: (progress) => ctx.progress.update(progress),
  });
  ctx.print(phaseSummary(ctx.progress.finish()));
  ctx.print('');
  ctx.print(
    rowsSummary(await tableChecksums(db, schema, [...new Set(projections.flatMap((p) => p.tables))])),
  );
  ctx.print('');
  ctx.print(`The read model at stream sequence ${sequence} is in schema ${schema}.`);
  ctx.print(`Drop it when done: DROP SCHEMA ${schema} CASCADE;`);
  return 0;
}
