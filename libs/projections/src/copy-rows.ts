import { CompiledQuery, RawBuilder, sql } from 'kysely';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { Row } from './bulk-fold';
import { AnyKysely } from './projection';

/** Rows per chunk of COPY data: large enough to amortise a write, small enough to stream. */
const rowsPerChunk = 2000;

/**
 * Writes rows into an empty table with COPY FROM STDIN. Values take the same way into Postgres
 * as the live upsert's JSON rows (json_populate_recordset): json and jsonb columns get the
 * value's JSON, other columns its text (a Date its ISO time), so both write the same bytes.
 * Columns are those the rows name; a row without one writes NULL there, as the JSON rows do.
 */
export async function copyRows(
  db: AnyKysely,
  schema: string,
  table: string,
  rows: Iterable<Row>,
): Promise<number> {
  const all = [...rows];
  if (all.length === 0) return 0;
  const json = await jsonColumns(db, sql`format('%I.%I', ${schema}::text, ${table}::text)`);
  // On a connection of its own, held until the data has gone.
  await db
    .connection()
    .execute((connection) =>
      copyInto(connection, `${quote(schema)}.${quote(table)}`, columnsOf(all), all, json),
    );
  return all.length;
}

/** Every column the rows name, in the order they first appear. */
export function columnsOf(rows: readonly Row[]): string[] {
  const columns = new Set<string>();
  for (const row of rows) for (const column in row) columns.add(column);
  return [...columns];
}

/**
 * COPY FROM STDIN of `rows` into `target` (a quoted relation name) on `connection`, which may be
 * a transaction's: the rows are in it once this resolves.
 */
export async function copyInto(
  connection: AnyKysely,
  target: string,
  names: readonly string[],
  all: readonly Row[],
  json: ReadonlySet<string>,
): Promise<void> {
  const encoders = names.map((column) => (json.has(column) ? jsonField : textField));

  function* chunks(): Generator<string> {
    let chunk = '';
    for (let i = 0; i < all.length; i++) {
      const row = all[i]!;
      for (let c = 0; c < names.length; c++) {
        chunk += encoders[c]!(row[names[c]!]);
        chunk += c === names.length - 1 ? '\n' : '\t';
      }
      if ((i + 1) % rowsPerChunk === 0) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  }

  // Kysely has no COPY, but hands its SQL to pg's client.query untouched, which runs any
  // Submittable given there.
  const copy = copyFrom(`COPY ${target} (${names.map(quote).join(', ')}) FROM STDIN`);
  await connection.executeQuery(CompiledQuery.raw(copy as unknown as string));
  await pipeline(Readable.from(chunks()), copy);
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The json and jsonb columns of `relation` (an expression naming it, resolved as regclass). */
export async function jsonColumns(db: AnyKysely, relation: RawBuilder<unknown>): Promise<Set<string>> {
  const { rows } = await sql<{ name: string }>`
    SELECT a.attname AS name
      FROM pg_attribute a
     WHERE a.attrelid = (${relation})::regclass
       AND a.attnum > 0 AND NOT a.attisdropped
       AND a.atttypid IN ('json'::regtype, 'jsonb'::regtype)`.execute(db);
  return new Set(rows.map((r) => r.name));
}

const nullField = '\\N';

function jsonField(value: unknown): string {
  // As in the live JSON rows, a value that is JSON null (or no JSON at all) is SQL NULL.
  const text = value === undefined ? undefined : JSON.stringify(value);
  return text === undefined || text === 'null' ? nullField : escape(text);
}

function textField(value: unknown): string {
  if (value === null || value === undefined) return nullField;
  if (typeof value === 'string') return escape(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : nullField;
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? nullField : value.toISOString();
  return escape(JSON.stringify(value));
}

const special = /[\\\n\r\t]/;
const specials = /[\\\n\r\t]/g;
const escapes: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** COPY's text format: backslash, newline, carriage return and tab are escaped. */
function escape(text: string): string {
  return special.test(text) ? text.replace(specials, (c) => escapes[c]!) : text;
}
