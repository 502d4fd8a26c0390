import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { usersProjection } from '@shop/read-models';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { withProjectionsPaused } from '../src/live-pause';
import { rebuildAgainstLive, RebuildPhase } from '../src/live-rebuild';
import { swapProjectionTables } from '../src/read-model-swap';
import { rebuildProjections, recreateSchema } from '../src/rebuild';
import { catchUpProjections } from '../src/stream-catch-up';
import { compareTables } from '../src/table-comparison';
import { writeUserHistory } from './fixtures';
import {
  batchWaitingForLock,
  countedEvents,
  countingMigrations,
  countingProjection,
  keepAppending,
  projectionsWithCounter,
  startLiveReadModel,
  streamEvents,
} from './live-read-model';

const env = testEnvironment('liverebuild');
let t: TestEventStore;
let database: DatabaseHandle;

beforeAll(async () => {
  t = await openTestEventStore(env);
  database = createDatabase(env.databaseUrl, { max: 8 });
  await writeUserHistory(t.store, 150, 3);
});
afterAll(async () => {
  await t.close();
  await database.close();
});

async function schemaExists(schema: string): Promise<boolean> {
  const { rows } = await sql`SELECT 1 FROM pg_namespace WHERE nspname = ${schema}`.execute(database.db);
  return rows.length > 0;
}

async function tableOid(schema: string, table: string): Promise<number> {
  const { rows } = await sql<{ oid: number }>`
    SELECT ${`${schema}.${table}`}::regclass::oid::int AS oid`.execute(database.db);
  return rows[0]!.oid;
}

/** Every table of `schema` equals a rebuild from the whole stream, and each event counted once. */
async function expectEqualToFreshRebuild(schema: string, last: number): Promise<void> {
  const projections = projectionsWithCounter();
  const fresh = `${schema}_fresh`;
  await rebuildProjections({
    store: t.store,
    db: database.db,
    schema: fresh,
    projections,
    migrations: countingMigrations,
    untilSequence: last,
  });
  const tables = await compareTables(
    database.db,
    schema,
    fresh,
    projections.flatMap((p) => p.tables),
  );
  expect(tables.filter((c) => !c.equal)).toEqual([]);
  expect(tables.find((c) => c.table === 'users')!.live.rows).toBeGreaterThanOrEqual(150);
  expect(await countedEvents(database.db, schema)).toBe(await streamEvents(t.store, last));
}

describe('rebuild against the live read model', () => {
  it('swaps in a rebuild of every projection while live runners keep applying new events', async () => {
    const live = `${env.schema}_all`;
    const projections = projectionsWithCounter();
    const projector = await startLiveReadModel(env, t.store, live, projections);
    await projector.caughtUp(await t.store.lastStreamSequence());
    const appender = keepAppending(t.store);
    const phases: RebuildPhase[] = [];

    const result = await rebuildAgainstLive({
      store: t.store,
      db: database.db,
      liveSchema: live,
      scratchSchema: `${live}_rebuild`,
      projections,
      migrations: countingMigrations,
      batchSize: 100,
      swap: { wholeSchema: true, asideSchema: `${live}_old` },
      async onPhase(phase) {
        phases.push(phase);
        if (phase === 'rebuild') {
          // The live read model moves well past where this pass stops: a catch-up round must follow.
          await writeUserHistory(t.store, 60, 2);
          await projector.caughtUp(await t.store.lastStreamSequence());
        }
        if (phase === 'align') {
          // Paused: new events reach the live runners, whose next batches must wait for the swap.
          await writeUserHistory(t.store, 10, 0);
          await batchWaitingForLock(database.db, projector.applicationName);
        }
      },
    });
    expect(result).toMatchObject({ equal: true, swapped: true });
    expect(phases[0]).toBe('rebuild');
    expect(phases).toContain('catch-up');
    expect(phases.at(-1)).toBe('align');

    await writeUserHistory(t.store, 20, 2);
    await appender.stop();
    const last = await t.store.lastStreamSequence();
    expect(last).toBeGreaterThan(Math.max(...result.positions.values()));
    await projector.caughtUp(last);
    await projector.stop();

    expect(await schemaExists(`${live}_rebuild`)).toBe(false);
    expect(await schemaExists(`${live}_old`)).toBe(true);
    await expectEqualToFreshRebuild(live, last);
    // Not one batch noticed the swap: no reset, no retry.
    expect(projector.logs).toEqual([]);
  }, 120_000);

  it('swaps in the tables of some projections and leaves the others in place', async () => {
    const live = `${env.schema}_some`;
    const projector = await startLiveReadModel(env, t.store, live, projectionsWithCounter());
    await projector.caughtUp(await t.store.lastStreamSequence());
    const appender = keepAppending(t.store);
    const before = {
      users: await tableOid(live, 'users'),
      counts: await tableOid(live, 'event_counts'),
      memories: await tableOid(live, 'user_memories'),
    };

    const result = await rebuildAgainstLive({
      store: t.store,
      db: database.db,
      liveSchema: live,
      scratchSchema: `${live}_rebuild`,
      projections: [usersProjection, countingProjection],
      migrations: countingMigrations,
      batchSize: 100,
      swap: { wholeSchema: false, asideSchema: `${live}_old` },
      async onPhase(phase) {
        if (phase !== 'align') return;
        await writeUserHistory(t.store, 10, 0);
        await batchWaitingForLock(database.db, projector.applicationName);
      },
    });
    expect(result).toMatchObject({ equal: true, swapped: true });
    expect(result.tables.map((c) => c.table)).toEqual(['users', 'event_counts']);

    await writeUserHistory(t.store, 20, 2);
    await appender.stop();
    const last = await t.store.lastStreamSequence();
    await projector.caughtUp(last);
    await projector.stop();

    expect(await tableOid(live, 'user_memories')).toBe(before.memories);
    expect(await tableOid(live, 'users')).not.toBe(before.users);
    expect(await tableOid(`${live}_old`, 'users')).toBe(before.users);
    expect(await tableOid(`${live}_old`, 'event_counts')).toBe(before.counts);
    const kept = await database.db
      .withSchema(`${live}_old`)
      .selectFrom('projection_checkpoints')
      .select(['projection', 'position'])
      .orderBy('projection')
      .execute();
    expect(kept).toEqual([
      { projection: 'event_counts', position: result.positions.get('event_counts') },
      { projection: 'users', position: result.positions.get('users') },
    ]);
    expect(await schemaExists(`${live}_rebuild`)).toBe(false);
    await expectEqualToFreshRebuild(live, last);
    expect(projector.logs).toEqual([]);
  }, 120_000);

  it('restarts a live runner from a checkpoint that a swap moved under it, applying later events once', async () => {
    const live = `${env.schema}_moved`;
    const projections = [usersProjection, countingProjection];
    const projector = await startLiveReadModel(env, t.store, live, projections);
    const before = await t.store.lastStreamSequence();
    await projector.caughtUp(before);
    const rebuilt = `${live}_rebuild`;
    await recreateSchema(database.db, rebuilt, countingMigrations);

    // A swap of a rebuild that is ahead of the live runners: their in-memory checkpoint is stale.
    await withProjectionsPaused(database.db, live, async ({ trx }) => {
      await writeUserHistory(t.store, 10, 1);
      await batchWaitingForLock(database.db, projector.applicationName);
      await catchUpProjections({
        store: t.store,
        db: database.db,
        schema: rebuilt,
        projections,
        until: await t.store.lastStreamSequence(),
      });
      await swapProjectionTables(trx, { live, rebuilt, aside: `${live}_old` }, projections);
    });
    const moved = await t.store.lastStreamSequence();

    await writeUserHistory(t.store, 10, 1);
    const last = await t.store.lastStreamSequence();
    await projector.caughtUp(last);
    await projector.stop();

    const resets = projector.logs.filter((l) => l.msg === 'consumer reset');
    expect(resets.length).toBeGreaterThan(0);
    expect(resets.map((l) => (l.obj as { reason: string }).reason)).toContain(
      `checkpoint of users is at ${moved}, expected ${before}`,
    );
    expect(projector.logs.filter((l) => l.level === 'error')).toEqual([]);
    const rows = await compareTables(database.db, live, `${live}_old`, ['users']);
    expect(rows[0]!.live.rows).toBeGreaterThan(rows[0]!.rebuilt.rows);
    expect(await countedEvents(database.db, live)).toBe(await streamEvents(t.store, last));
  }, 60_000);

  it('keeps the live read model when a table differs, and replaces it only when forced', async () => {
    const live = `${env.schema}_tampered`;
    const last = await t.store.lastStreamSequence();
    await rebuildProjections({
      store: t.store,
      db: database.db,
      schema: live,
      projections: projectionsWithCounter(),
      migrations: countingMigrations,
      untilSequence: last,
    });
    await sql`UPDATE ${sql.table(`${live}.users`)} SET display_name = 'tampered'
               WHERE user_id = (SELECT min(user_id::text)::uuid FROM ${sql.table(`${live}.users`)})`.execute(
      database.db,
    );
    const options = {
      store: t.store,
      db: database.db,
      liveSchema: live,
      scratchSchema: `${live}_rebuild`,
      projections: [usersProjection, countingProjection],
      migrations: countingMigrations,
    };

    const refused = await rebuildAgainstLive({
      ...options,
      swap: { wholeSchema: false, asideSchema: `${live}_old` },
    });
    expect(refused).toMatchObject({ equal: false, swapped: false });
    expect(refused.tables.filter((c) => !c.equal).map((c) => c.table)).toEqual(['users']);
    expect(await schemaExists(`${live}_old`)).toBe(false);
    expect(await schemaExists(`${live}_rebuild`)).toBe(true);
    const stillTampered =
      await sql`SELECT 1 FROM ${sql.table(`${live}.users`)} WHERE display_name = 'tampered'`.execute(
        database.db,
      );
    expect(stillTampered.rows).toHaveLength(1);

    await sql`DROP SCHEMA ${sql.id(`${live}_rebuild`)} CASCADE`.execute(database.db);
    const forced = await rebuildAgainstLive({
      ...options,
      swap: { wholeSchema: false, asideSchema: `${live}_old`, force: true },
    });
    expect(forced).toMatchObject({ equal: false, swapped: true });
    const verified = await rebuildAgainstLive({ ...options, scratchSchema: `${live}_verify` });
    expect(verified).toMatchObject({ equal: true, swapped: false });
    expect(await schemaExists(`${live}_verify`)).toBe(false);
  }, 60_000);
});
