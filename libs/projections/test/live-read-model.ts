import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely, Migration, sql } from 'kysely';
import { aggregates } from '@shop/contracts';
import { createDatabase } from '@shop/db';
import { EventStore } from '@shop/eventstore';
import { readModelMigrations, readModelProjections } from '@shop/read-models';
import { TestEnvironment } from '@shop/testing';
import { AnyKysely, AnyProjection } from '../src/projection';
import { ProjectionRunner } from '../src/projection-runner';
import { recreateSchema } from '../src/rebuild';
import { writeUserHistory } from './fixtures';

/** The gateway's read model plus the event counter's table. */
export const countingMigrations: Record<string, Migration> = {
  ...readModelMigrations,
  '9001-event-counts': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('event_counts')
        .addColumn('subject', 'text', (c) => c.primaryKey())
        .addColumn('n', 'integer', (c) => c.notNull())
        .execute();
    },
  },
};

/**
 * Counts events per subject. Deliberately not idempotent: an event applied twice, or lost,
 * changes the total, which the real projections (upserts) would hide.
 */
export const countingProjection: AnyProjection = {
  name: 'event_counts',
  // It counts every event, so no batch may be passed over as irrelevant.
  aggregates,
  tables: ['event_counts'],
  async apply(db, events) {
    const perSubject = new Map<string, number>();
    for (const e of events) perSubject.set(e.subject, (perSubject.get(e.subject) ?? 0) + 1);
    if (perSubject.size === 0) return;
    await db
      .insertInto('event_counts')
      .values([...perSubject].map(([subject, n]) => ({ subject, n })))
      .onConflict((oc) => oc.column('subject').doUpdateSet({ n: sql`event_counts.n + excluded.n` }))
      .execute();
  },
};

/** Every projection of the read model and the counter. */
export function projectionsWithCounter(): AnyProjection[] {
  return [...readModelProjections(), countingProjection];
}

export async function countedEvents(db: AnyKysely, schema: string): Promise<number> {
  const { rows } = await sql<{ total: number }>`
    SELECT coalesce(sum(n), 0)::int AS total FROM ${sql.table(`${schema}.event_counts`)}`.execute(db);
  return rows[0]!.total;
}

export async function streamEvents(store: EventStore, until: number): Promise<number> {
  let events = 0;
  for await (const commit of store.read(1, until)) events += commit.length;
  return events;
}

export interface LogEntry {
  level: 'warn' | 'error';
  msg: string;
  obj: object;
}

export interface LiveReadModel {
  /** The Postgres application name of the runners' connections. */
  applicationName: string;
  /** Warnings and errors the runners logged. */
  logs: LogEntry[];
  caughtUp(sequence: number): Promise<void>;
  stop(): Promise<void>;
}

/** A projector in this process: the schema migrated, one running ProjectionRunner per projection. */
export async function startLiveReadModel(
  env: TestEnvironment,
  store: EventStore,
  schema: string,
  projections: readonly AnyProjection[],
): Promise<LiveReadModel> {
  const applicationName = `live-${schema}`;
  const database = createDatabase(env.databaseUrl, { max: projections.length + 2, applicationName });
  await recreateSchema(database.db, schema, countingMigrations);
  const logs: LogEntry[] = [];
  const logger = {
    info() {},
    warn: (obj: object, msg: string) => logs.push({ level: 'warn' as const, msg, obj }),
    error: (obj: object, msg: string) => logs.push({ level: 'error' as const, msg, obj }),
  };
  const runners = projections.map(
    (projection) =>
      new ProjectionRunner({
        store,
        db: database.db,
        databaseUrl: env.databaseUrl,
        schema,
        projection,
        batchSize: 20,
        logger,
      }),
  );
  for (const runner of runners) runner.start();
  return {
    applicationName,
    logs,
    async caughtUp(sequence) {
      await Promise.all(runners.map((r) => r.caughtUp(sequence)));
    },
    async stop() {
      await Promise.all(runners.map((r) => r.stop()));
      await database.close();
    },
  };
}

/** Appends a few users at a time until stopped, as a busy system would. */
export function keepAppending(store: EventStore): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) {
      await writeUserHistory(store, 3, 1);
      await sleep(15);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** Resolves once a live batch of `applicationName` waits for a lock on its checkpoint row. */
export async function batchWaitingForLock(db: AnyKysely, applicationName: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE application_name = ${applicationName} AND wait_event_type = 'Lock'
         AND query LIKE '%UPDATE %projection_checkpoints%'`.execute(db);
    if (rows[0]!.n > 0) return;
    if (Date.now() > deadline) throw new Error('no live batch waited for the pause');
    await sleep(20);
  }
}
