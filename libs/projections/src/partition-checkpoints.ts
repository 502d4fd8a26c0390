import { Kysely } from 'kysely';
import { BookkeepingDatabase } from '@shop/db';
import { AnyKysely, AnyProjection } from './projection';
import { partitionNames } from './projection-partitions';

/**
 * Checks, before a runner reads its checkpoint, that the schema holds no checkpoint row of
 * another partitioning of the same projection: a partition starting at 0 next to rows that
 * applied the same aggregates would apply them twice. One case is safe and is seeded here: the
 * whole projection's row and a first start with N partitions (1 -> N). Every partition then
 * starts at the whole's position, which each has applied all of; the whole row goes in the same
 * transaction. Returns why the runner must not apply, or null.
 */
export async function preparePartitionCheckpoint(
  db: AnyKysely,
  schema: string,
  projection: AnyProjection,
): Promise<string | null> {
  const whole = projection.partition?.of ?? projection.name;
  const count = projection.partition?.count ?? 1;
  const own = new Set(partitionNames(whole, count));
  const bookkeeping: Kysely<BookkeepingDatabase> = db;
  const rows = await bookkeeping
    .withSchema(schema)
    .selectFrom('projection_checkpoints')
    .select('projection')
    .where((eb) =>
      eb.or([eb('projection', '=', whole), eb('projection', 'like', `${likeEscaped(whole)}-p%of%`)]),
    )
    .execute();
  const foreign = rows.map((r) => r.projection).filter((name) => !own.has(name));
  if (foreign.length === 0) return null;
  const refusal =
    `checkpoint rows of another partitioning of ${whole} exist (${foreign.join(', ')}); ` +
    `rebuild it with STREAM_PARTITIONS=${count} (see docs/operations.md)`;
  if (count === 1 || foreign.length > 1 || foreign[0] !== whole) return refusal;

  return bookkeeping.transaction().execute(async (trx) => {
    const parked = await trx
      .withSchema(schema)
      .selectFrom('parked_subjects')
      .select('subject')
      .where('projection', '=', whole)
      .executeTakeFirst();
    if (parked) return `${refusal}, or release its parked subjects first`;
    const seed = await trx
      .withSchema(schema)
      .deleteFrom('projection_checkpoints')
      .where('projection', '=', whole)
      .returning('position')
      .executeTakeFirst();
    // Gone already: another process seeded the partitions meanwhile.
    if (!seed) return null;
    await trx
      .withSchema(schema)
      .insertInto('projection_checkpoints')
      .values([...own].map((name) => ({ projection: name, position: seed.position })))
      .onConflict((oc) => oc.column('projection').doNothing())
      .execute();
    return null;
  });
}

/** `_` and `%` stand for themselves (projection names hold underscores). */
function likeEscaped(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}
