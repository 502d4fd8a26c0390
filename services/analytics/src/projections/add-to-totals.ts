import { Expression, Kysely, RawBuilder, sql } from 'kysely';
import type { AnyKysely } from '@shop/projections';

export interface TotalsSpec {
  table: string;
  /** Key columns and their SQL types, in the table's primary key order. */
  keys: Record<string, string>;
  /** Columns that are sums, and their SQL types. */
  sums: Record<string, string>;
}

/** Keeps each statement well under Postgres's 65,535 bind parameters. */
const rowsPerStatement = 5000;

type Untyped = Kysely<Record<string, Record<string, unknown>>>;

/**
 * Adds deltas to a totals table, one statement per chunk. The deltas are grouped by key in
 * SQL (exact numeric sums, and a key may repeat within a batch), then added to the stored
 * totals. Sums do not depend on where batches start and end, so a rebuild with any batch
 * size ends with the same rows as the live projection. Built with the query builder, so the
 * table is qualified with the schema `db` is bound to.
 */
export async function addToTotals(
  db: AnyKysely,
  spec: TotalsSpec,
  deltas: readonly Record<string, string | number>[],
): Promise<void> {
  const untyped = db as Untyped;
  const keys = Object.keys(spec.keys);
  const sums = Object.keys(spec.sums);
  const columns = [...keys, ...sums];
  const types: Record<string, string> = { ...spec.keys, ...spec.sums };
  for (let i = 0; i < deltas.length; i += rowsPerStatement) {
    const rows = deltas
      .slice(i, i + rowsPerStatement)
      .map((delta) => sql`(${sql.join(columns.map((c) => sql`${delta[c]}::${sql.raw(types[c]!)}`))})`);
    const source = sql`(SELECT * FROM (VALUES ${sql.join(rows)}) AS d (${sql.join(columns.map((c) => sql.id(c)))}))`;
    const grouped = untyped
      .selectFrom((source as RawBuilder<Record<string, unknown>>).as('v'))
      .select([
        ...keys.map((k) => sql.ref(`v.${k}`).as(k)),
        ...sums.map((c) => sql`sum(${sql.ref(`v.${c}`)})`.as(c)),
      ])
      .groupBy(keys.map((k) => `v.${k}`));
    await untyped
      .insertInto(spec.table)
      .columns(columns)
      .expression(grouped as unknown as Expression<Record<string, unknown>>)
      .onConflict((oc) =>
        oc
          .columns(keys)
          .doUpdateSet((eb) =>
            Object.fromEntries(
              sums.map((c) => [c, eb(eb.ref(`${spec.table}.${c}`), '+', eb.ref(`excluded.${c}`))]),
            ),
          ),
      )
      .execute();
  }
}
