import { AnyKysely } from './projection';
import { TableChecksum, tableChecksums } from './table-checksums';

export interface TableComparison {
  table: string;
  live: TableChecksum;
  rebuilt: TableChecksum;
  equal: boolean;
}

/** Row count and checksum of each table in both schemas; fair only when both are at one position. */
export async function compareTables(
  db: AnyKysely,
  liveSchema: string,
  rebuiltSchema: string,
  tables: readonly string[],
): Promise<TableComparison[]> {
  const [live, rebuilt] = await Promise.all([
    tableChecksums(db, liveSchema, tables),
    tableChecksums(db, rebuiltSchema, tables),
  ]);
  return tables.map((table) => {
    const l = live[table]!;
    const r = rebuilt[table]!;
    return { table, live: l, rebuilt: r, equal: l.rows === r.rows && l.md5 === r.md5 };
  });
}
