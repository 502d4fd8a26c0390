import { Kysely, Migration, sql } from 'kysely';
import { unlinkSync } from 'node:fs';
import { EventStore } from '@shop/eventstore';
import { AnyProjection, rebuildProjections } from '@shop/projections';
import { appendHistory, eventsPerUser } from './event-history';

export interface RebuildMeasure {
  events: number;
  appendSeconds: number;
  appendEventsPerSecond: number;
  rebuildSeconds: number;
  rebuildEventsPerSecond: number;
  /** CPU the rebuild took in this process (decoding, folding, encoding rows), not Postgres's. */
  rebuildCpuSeconds: number;
  rows: number;
  copySeconds: number;
  /** How many times longer the rebuild took than COPY of the rows it produced. */
  rebuildToCopy: number;
  copyMethod: string;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * Generates at least `minEvents` events on a stream of their own, rebuilds every projection
 * from it into a fresh schema, then loads the same rows again with a raw COPY for comparison.
 */
export async function measureRebuild(options: {
  store: EventStore;
  db: Kysely<unknown>;
  schema: string;
  projections: readonly AnyProjection[];
  migrations: Record<string, Migration>;
  minEvents: number;
  runId: string;
  log: (line: string) => void;
  /** Wraps the rebuild alone (not the appends before it), for a CPU profile of it. */
  profiled?: <T>(work: () => Promise<T>) => Promise<T>;
}): Promise<RebuildMeasure> {
  const { store, db, schema, projections, migrations, log } = options;
  await store.provision();
  const users = Math.ceil(options.minEvents / eventsPerUser);
  log(`appending ${users * eventsPerUser} events (${users} user histories), pipelined`);
  let started = performance.now();
  const events = await appendHistory(store, users, 512);
  const appendSeconds = (performance.now() - started) / 1000;

  log(`rebuilding ${projections.map((p) => p.name).join(', ')} from ${events} events`);
  started = performance.now();
  const cpuBefore = process.cpuUsage();
  const rebuildAll = () => rebuildProjections({ store, db, schema, projections, migrations });
  const result = await (options.profiled ? options.profiled(rebuildAll) : rebuildAll());
  const rebuildSeconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  if (result.events !== events)
    throw new Error(`rebuild applied ${result.events} events, expected ${events}`);

  const copy = await copySameRows(
    db,
    schema,
    `${schema}_copy`,
    projections.flatMap((p) => p.tables),
    options.runId,
  );
  return {
    events,
    appendSeconds: round(appendSeconds),
    appendEventsPerSecond: Math.round(events / appendSeconds),
    rebuildSeconds: round(rebuildSeconds),
    rebuildEventsPerSecond: Math.round(events / rebuildSeconds),
    rebuildCpuSeconds: round((cpu.user + cpu.system) / 1e6),
    rows: copy.rows,
    copySeconds: round(copy.seconds, 3),
    rebuildToCopy: round(rebuildSeconds / copy.seconds, 1),
    copyMethod: copy.method,
  };
}

/**
 * COPY FROM a file of the rebuilt rows into empty tables of the same shape (indexes included):
 * the floor for writing those rows. Server-side files need a superuser; without one the rows are
 * copied with INSERT ... SELECT, and the method says so.
 */
async function copySameRows(
  db: Kysely<unknown>,
  from: string,
  to: string,
  tables: readonly string[],
  runId: string,
): Promise<{ rows: number; seconds: number; method: string }> {
  await sql`CREATE SCHEMA ${sql.id(to)}`.execute(db);
  let rows = 0;
  let seconds = 0;
  let method = 'COPY FROM file';
  for (const table of tables) {
    const source = sql.table(`${from}.${table}`);
    const target = sql.table(`${to}.${table}`);
    await sql`CREATE TABLE ${target} (LIKE ${source} INCLUDING ALL)`.execute(db);
    const file = `/tmp/bench_${runId}_${table}.copy`;
    let started: number;
    try {
      await sql`COPY ${source} TO ${sql.lit(file)}`.execute(db);
      started = performance.now();
      await sql`COPY ${target} FROM ${sql.lit(file)}`.execute(db);
      seconds += (performance.now() - started) / 1000;
    } catch {
      method = 'INSERT ... SELECT (no superuser for COPY files)';
      started = performance.now();
      await sql`INSERT INTO ${target} SELECT * FROM ${source}`.execute(db);
      seconds += (performance.now() - started) / 1000;
    } finally {
      try {
        unlinkSync(file);
      } catch {
        // Postgres may run on another host; its file is then not ours to remove.
      }
    }
    const { rows: counted } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${target}`.execute(db);
    rows += counted[0]?.n ?? 0;
  }
  return { rows, seconds, method };
}
