import { sql } from 'kysely';
import { bookkeepingTables } from '@shop/db';
import { AnyKysely, AnyProjection } from './projection';
import { wholeNameOf } from './projection-partitions';

export interface SwapSchemas {
  live: string;
  rebuilt: string;
  /** Receives what is replaced, for inspection; must not exist yet. */
  aside: string;
}

/**
 * A waiting DDL lock stalls every reader queued behind it, so a swap that cannot get its
 * locks quickly (a long query on a live table) fails and rolls back instead.
 */
const swapLockTimeout = '10s';

/** Every projection at once: the rebuilt schema, checkpoints and all, takes the live one's name. */
export async function swapSchema(trx: AnyKysely, schemas: SwapSchemas): Promise<void> {
  await sql`SET LOCAL lock_timeout = ${sql.lit(swapLockTimeout)}`.execute(trx);
  await sql`ALTER SCHEMA ${sql.id(schemas.live)} RENAME TO ${sql.id(schemas.aside)}`.execute(trx);
  await sql`ALTER SCHEMA ${sql.id(schemas.rebuilt)} RENAME TO ${sql.id(schemas.live)}`.execute(trx);
}

/**
 * Some projections of a schema: their live tables move to `aside` (with their bookkeeping
 * rows, copied), the rebuilt tables move into the live schema, and the live checkpoint and
 * parking rows become the rebuilt ones. Tables move rather than get renamed because index and
 * constraint names are unique per schema. Whole tables move, so nothing outside the given
 * projections may reference them (read models have no foreign keys between projections).
 */
export async function swapProjectionTables(
  trx: AnyKysely,
  schemas: SwapSchemas,
  projections: readonly AnyProjection[],
): Promise<void> {
  const { live, rebuilt, aside } = schemas;
  const names = projections.map((p) => p.name);
  // Rows of any partitioning of these projections leave the live schema: after the swap only the
  // rebuild's own partitioning is there for the runners to find.
  const wholes = [...new Set(names.map(wholeNameOf))];
  const ofThese = sql`(projection = ANY(${names}) OR regexp_replace(projection, '-p[0-9]+of[0-9]+$', '') = ANY(${wholes}))`;
  await sql`SET LOCAL lock_timeout = ${sql.lit(swapLockTimeout)}`.execute(trx);
  await sql`CREATE SCHEMA ${sql.id(aside)}`.execute(trx);
  for (const table of new Set(projections.flatMap((p) => p.tables))) {
    await sql`ALTER TABLE ${sql.table(`${live}.${table}`)} SET SCHEMA ${sql.id(aside)}`.execute(trx);
    await sql`ALTER TABLE ${sql.table(`${rebuilt}.${table}`)} SET SCHEMA ${sql.id(live)}`.execute(trx);
  }
  for (const table of bookkeepingTables) {
    const [from, to, keep] = [`${rebuilt}.${table}`, `${live}.${table}`, `${aside}.${table}`];
    await sql`CREATE TABLE ${sql.table(keep)} AS
              SELECT * FROM ${sql.table(to)} WHERE ${ofThese}`.execute(trx);
    await sql`DELETE FROM ${sql.table(to)} WHERE ${ofThese}`.execute(trx);
    await sql`INSERT INTO ${sql.table(to)}
              SELECT * FROM ${sql.table(from)} WHERE projection = ANY(${names})`.execute(trx);
  }
}
