import { Kysely, sql } from 'kysely';
import { Row } from './bulk-fold';
import { columnsOf, copyInto } from './copy-rows';
import { AnyKysely } from './projection';

/**
 * How a batch's rows reach their table; the fold that made them is the same either way.
 * - `batch`: one statement whose rows travel as a single JSON parameter (the live path: a
 *   batch of a few messages costs one round trip).
 * - `bulk`: COPY into a staging table of the transaction, then one statement from it (a
 *   catch-up batch of thousands of rows, as a rebuild writes them: COPY's text rows cost less
 *   to encode and to parse than one JSON document of them, and the statement's plan is fixed).
 */
export type WriteMode = 'batch' | 'bulk';

export interface RowTarget {
  /** A table of whichever schema `db` is bound to. */
  table: string;
  /** Its primary key's columns, the conflict target. */
  key: readonly string[];
  /** On a key already stored: the row replaces it (`update`), or the stored one stays (`keep`). */
  onConflict: 'update' | 'keep';
}

type Untyped = Kysely<Record<string, Record<string, unknown>>>;

/** Inserts or upserts `rows` (at most one per key when `onConflict` is `update`). */
export async function writeRows(
  db: AnyKysely,
  target: RowTarget,
  rows: readonly Row[],
  mode: WriteMode,
): Promise<void> {
  if (rows.length === 0) return;
  const columns = columnsOf(rows);
  if (mode === 'bulk') return writeThroughStaging(db, target, columns, rows);
  // The table is chosen at run time, so this one helper works on an untyped view of the schema.
  const untyped = db as unknown as Untyped;
  await untyped
    .insertInto(target.table)
    .columns(columns)
    .expression((eb) =>
      eb
        .selectFrom(
          // Against the table's own row type: jsonb columns take their nested JSON as is,
          // timestamps go as ISO text, and no bind parameter per value is built and encoded.
          sql<Row>`json_populate_recordset(NULL::${sql.table(target.table)}, ${JSON.stringify(rows)}::json)`.as(
            'r',
          ),
        )
        .select(columns as never),
    )
    .onConflict((oc) => conflictClause(oc, target, columns))
    .execute();
}

/**
 * COPY into a temporary table shaped as the columns written (no constraints, dropped at
 * commit), then one INSERT ... SELECT into the table: three round trips, whatever the rows.
 * `db` must be a transaction's, so the staging table is there for the INSERT.
 */
async function writeThroughStaging(
  db: AnyKysely,
  target: RowTarget,
  columns: readonly string[],
  rows: readonly Row[],
): Promise<void> {
  const staging = `projection_staging_${target.table}`;
  const relation = `pg_temp.${quote(staging)}`;
  const untyped = db as unknown as Untyped;
  // The table's columns, as `db`'s schema qualifies it (a raw statement is not qualified).
  const shape = untyped
    .selectFrom(target.table)
    .select(columns as never)
    .where(sql.lit(false))
    .compile().sql;
  // No bind parameters, so one query of several statements (the last one's rows come back). A
  // batch cut around account closures writes one table more than once in its transaction.
  const { rows: json } = await sql<{ name: string }>`
    DROP TABLE IF EXISTS ${sql.raw(relation)};
    CREATE TEMP TABLE ${sql.id(staging)} ON COMMIT DROP AS ${sql.raw(shape)};
    SELECT a.attname AS name FROM pg_attribute a
     WHERE a.attrelid = ${sql.lit(relation)}::regclass AND a.attnum > 0
       AND a.atttypid IN ('json'::regtype, 'jsonb'::regtype)`.execute(db);
  await copyInto(db, relation, columns, rows, new Set(json.map((c) => c.name)));
  await untyped
    .insertInto(target.table)
    .columns(columns)
    .expression((eb) => eb.selectFrom(sql.raw(relation).as('s')).select(columns as never))
    .onConflict((oc) => conflictClause(oc, target, columns))
    .execute();
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

function conflictClause(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  oc: any,
  target: RowTarget,
  columns: readonly string[],
) {
  const conflict = oc.columns(target.key);
  if (target.onConflict === 'keep') return conflict.doNothing();
  return conflict.doUpdateSet(
    Object.fromEntries(
      columns.filter((c) => !target.key.includes(c)).map((c) => [c, sql.ref(`excluded.${c}`)]),
    ),
  );
}
