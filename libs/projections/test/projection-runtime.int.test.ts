import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabase, DatabaseHandle } from '@shop/db';
import {
  migrateReadModel,
  ReadModelProjection,
  readModelMigrations,
  usersProjection,
} from '@shop/read-models';
import { openTestEventStore, startServiceProcess, testEnvironment, TestEventStore } from '@shop/testing';
import { ProjectionRunner } from '../src/projection-runner';
import { rebuildProjections } from '../src/rebuild';
import { tableChecksums } from '../src/table-checksums';
import { listParked, releaseParked } from '../src/parking';
import { PositionTracker } from '../src/position-tracker';
import { writeUserHistory } from './fixtures';

const env = testEnvironment('projections');
let t: TestEventStore;
let database: DatabaseHandle;

beforeAll(async () => {
  t = await openTestEventStore(env);
  database = createDatabase(env.databaseUrl, { max: 4 });
});
afterAll(async () => {
  await t.close();
  await database.close();
});

async function checkpointOf(schema: string, projection: string): Promise<number> {
  const row = await database.db
    .withSchema(schema)
    .selectFrom('projection_checkpoints')
    .select('position')
    .where('projection', '=', projection)
    .executeTakeFirst();
  return Number(row?.position ?? 0);
}

async function waitForCheckpoint(schema: string, projection: string, sequence: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while ((await checkpointOf(schema, projection).catch(() => 0)) < sequence) {
    if (Date.now() > deadline) throw new Error(`${projection} did not reach ${sequence}`);
    await sleep(50);
  }
}

describe('projection runtime', () => {
  it('applies every event exactly once when the projector is killed mid-stream and restarted', async () => {
    const schema = `${env.schema}_kill`;
    const serviceEnv = {
      ...env.env,
      READ_MODEL_SCHEMA: schema,
      PROJECTOR_BATCH_SIZE: '50',
      // Behind, it catches up in bulk batches: small ones, so the kill falls between two of them.
      PROJECTOR_CATCH_UP_BATCH_SIZE: '100',
      LOG_LEVEL: 'info',
    };
    let projector = startServiceProcess('services/projector/src/main.ts', serviceEnv);
    await projector.waitForOutput(/projector started/);
    await writeUserHistory(t.store, 300, 5);
    const last = await t.store.lastStreamSequence();

    // Kill it while it is working through the backlog, in the middle of the batches.
    await waitForCheckpoint(schema, 'users', Math.floor(last / 4));
    await projector.kill();
    const atKill = await checkpointOf(schema, 'users');
    expect(atKill).toBeLessThan(last);

    projector = startServiceProcess('services/projector/src/main.ts', serviceEnv);
    await waitForCheckpoint(schema, 'users', last);
    await projector.stop();

    const rebuilt = `${env.schema}_kill_rebuilt`;
    await rebuildProjections({
      store: t.store,
      db: database.db,
      schema: rebuilt,
      projections: [usersProjection],
      migrations: readModelMigrations,
    });
    const live = await tableChecksums(database.db, schema, ['users']);
    expect(live.users!.rows).toBeGreaterThanOrEqual(300);
    expect(live).toEqual(await tableChecksums(database.db, rebuilt, ['users']));
    expect(await checkpointOf(rebuilt, 'users')).toBe(last);
  }, 120_000);

  it('counts each event once across redeliveries and restarts (non-idempotent projection)', async () => {
    const schema = `${env.schema}_count`;
    await migrateReadModel(database.db as Kysely<unknown>, schema);
    await database.pool.query(
      `CREATE TABLE ${schema}.event_counts (subject text PRIMARY KEY, n int NOT NULL)`,
    );
    const counting: ReadModelProjection = {
      name: 'counting',
      aggregates: ['user'],
      tables: [],
      async apply(db, events) {
        if (events.length === 0) return;
        const perSubject = new Map<string, number>();
        for (const e of events) perSubject.set(e.subject, (perSubject.get(e.subject) ?? 0) + 1);
        const values = [...perSubject].map(([s, n]) => `('${s}', ${n})`).join(',');
        await sql
          .raw(
            `INSERT INTO ${schema}.event_counts AS c VALUES ${values} ON CONFLICT (subject) DO UPDATE SET n = c.n + excluded.n`,
          )
          .execute(db);
      },
    };
    await writeUserHistory(t.store, 40, 3);
    const runner = () =>
      new ProjectionRunner({
        store: t.store,
        db: database.db,
        databaseUrl: env.databaseUrl,
        schema,
        projection: counting,
        batchSize: 7,
      });
    const first = runner();
    first.start();
    await first.caughtUp(Math.floor((await t.store.lastStreamSequence()) / 2));
    await first.stop();
    const second = runner();
    second.start();
    const last = await t.store.lastStreamSequence();
    await second.caughtUp(last);
    await second.stop();

    const { rows } = await database.pool.query<{ total: number }>(
      `SELECT sum(n)::int AS total FROM ${schema}.event_counts`,
    );
    let expected = 0;
    for await (const commit of t.store.read(1, last)) expected += commit.length;
    expect(rows[0]!.total).toBe(expected);
  }, 60_000);

  it('parks only the poison subject; others flow, and the operator can retry it', async () => {
    const schema = `${env.schema}_poison`;
    const poisonId = randomUUID();
    let poisonActive = true;
    const flaky: ReadModelProjection = {
      ...usersProjection,
      async apply(db, events) {
        if (poisonActive && events.some((e) => e.aggregateId === poisonId && e.type === 'DisplayNameSet')) {
          throw new Error('handler bug for this user');
        }
        await usersProjection.apply(db, events);
      },
    };
    const ids = await writeUserHistory(t.store, 5, 2, [
      randomUUID(),
      poisonId,
      randomUUID(),
      randomUUID(),
      randomUUID(),
    ]);
    const last = await t.store.lastStreamSequence();

    await migrateReadModel(database.db as Kysely<unknown>, schema);
    const runner = new ProjectionRunner({
      store: t.store,
      db: database.db,
      databaseUrl: env.databaseUrl,
      schema,
      projection: flaky,
      batchSize: 100,
    });
    runner.start();
    await runner.caughtUp(last);
    await runner.stop();

    const parked = await listParked(database.db, schema);
    expect(parked.map((p) => p.subject)).toEqual([t.store.subject('user', poisonId)]);
    expect(parked[0]!.waiting).toBe(2);
    expect(parked[0]!.attempts).toBe(3);
    const rows = await database.db
      .withSchema(schema)
      .selectFrom('users')
      .selectAll()
      .where('user_id', 'in', ids)
      .execute();
    const healthy = rows.filter((r) => r.user_id !== poisonId);
    expect(healthy).toHaveLength(4);
    expect(healthy.every((r) => r.display_name?.endsWith('v1'))).toBe(true);
    expect(rows.find((r) => r.user_id === poisonId)?.display_name).toBeNull();

    poisonActive = false;
    const released = await releaseParked({
      store: t.store,
      db: database.db,
      schema,
      projection: flaky,
      subject: t.store.subject('user', poisonId),
      mode: 'retry',
    });
    expect(released).toEqual({ applied: 2, skipped: 0 });
    expect(await listParked(database.db, schema)).toEqual([]);
    const fixed = await database.db
      .withSchema(schema)
      .selectFrom('users')
      .selectAll()
      .where('user_id', '=', poisonId)
      .executeTakeFirstOrThrow();
    expect(fixed.display_name).toBe('user 1 v1');
  }, 60_000);

  it('gives identical rows when the read-model schema is dropped and replayed', async () => {
    const schema = `${env.schema}_replay`;
    const last = await t.store.lastStreamSequence();
    await rebuildProjections({
      store: t.store,
      db: database.db,
      schema,
      projections: [usersProjection],
      migrations: readModelMigrations,
    });
    const before = await tableChecksums(database.db, schema, ['users']);
    await database.pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await rebuildProjections({
      store: t.store,
      db: database.db,
      schema,
      projections: [usersProjection],
      migrations: readModelMigrations,
      batchSize: 13,
    });
    expect(await tableChecksums(database.db, schema, ['users'])).toEqual(before);
    expect(await checkpointOf(schema, 'users')).toBe(last);
  }, 60_000);

  it('passes over other aggregates without a transaction per batch, and writes the checkpoint once idle', async () => {
    const schema = `${env.schema}_skip`;
    await migrateReadModel(database.db as Kysely<unknown>, schema);
    let applies = 0;
    const sessionsOnly: ReadModelProjection = {
      name: 'sessions_only',
      aggregates: ['session'],
      tables: [],
      async apply() {
        applies++;
      },
    };
    await writeUserHistory(t.store, 100, 4);
    const last = await t.store.lastStreamSequence();
    const runner = new ProjectionRunner({
      store: t.store,
      db: database.db,
      databaseUrl: env.databaseUrl,
      schema,
      projection: sessionsOnly,
      batchSize: 20,
    });
    // The runner's clock stands still, so the once-a-second checkpoint transaction never falls due.
    vi.useFakeTimers({ toFake: ['Date'] });
    runner.start();
    try {
      await runner.caughtUp(last);
      // At least 25 batches of 20 user commits, and not one transaction for them.
      expect(applies).toBe(0);
      vi.useRealTimers();
      await waitForCheckpoint(schema, 'sessions_only', last, 5000);
    } finally {
      vi.useRealTimers();
      await runner.stop();
    }
  });

  it('lets a writer wait until its commit is readable', async () => {
    const schema = `${env.schema}_wait`;
    const tracker = new PositionTracker(t.nc, database.db, schema, env.subjectPrefix);
    await tracker.start();
    const runner = new ProjectionRunner({
      store: t.store,
      db: database.db,
      databaseUrl: env.databaseUrl,
      schema,
      projection: usersProjection,
    });
    await migrateReadModel(database.db as Kysely<unknown>, schema);
    runner.start();
    const [id] = await writeUserHistory(t.store, 1, 0);
    const sequence = await t.store.lastSequence(t.store.subject('user', id!));
    expect(await tracker.waitFor(['users'], sequence, 5000)).toBe(true);
    const row = await database.db
      .withSchema(schema)
      .selectFrom('users')
      .select('user_id')
      .where('user_id', '=', id!)
      .executeTakeFirst();
    expect(row?.user_id).toBe(id);
    expect(await tracker.waitFor(['users'], sequence + 1000, 50)).toBe(false);
    tracker.stop();
    await runner.stop();
  }, 30_000);
});
