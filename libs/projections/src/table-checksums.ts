import { sql } from 'kysely';
import { AnyKysely } from './projection';

export interface TableChecksum {
  rows: number;
  md5: string;
}

/** Row count and an order-independent digest of every row's text, per table. */
export async function tableChecksums(
  db: AnyKysely,
  schema: string,
  tables: readonly string[],
): Promise<Record<string, TableChecksum>> {
  const result: Record<string, TableChecksum> = {};
  for (const table of tables) {
    const { rows } = await sql<{ rows: number; md5: string | null }>`
      SELECT count(*)::int AS rows, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS md5
        FROM ${sql.table(`${schema}.${table}`)} t`.execute(db);
    result[table] = { rows: rows[0]?.rows ?? 0, md5: rows[0]?.md5 ?? '' };
  }
  return result;
}
