import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabase, DatabaseHandle } from '@shop/db';
import {
  migrateReadModel,
  readModelMigrations,
  userMemoriesProjection,
  usersProjection,
} from '@shop/read-models';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { PartitionClaims } from '../src/partition-claims';
import { runnerLockKey } from '../src/runner-lock';
import { projectionUnits } from '../src/projection-partitions';
import { ProjectionRunner } from '../src/projection-runner';
import { rebuildProjections } from '../src/rebuild';
import { tableChecksums } from '../src/table-checksums';
import { writeUserHistory } from './fixtures';

const env = testEnvironment('partclaims');
let t: TestEventStore;
let database: DatabaseHandle;

beforeAll(async () => {
  t = await openTestEventStore(env);
  database = createDatabase(env.databaseUrl, { max: 6 });
});
afterAll(async () => {
  await t.close();
  await database.close();
});

/** One process's runners over the users projection split `partitions` ways, locked by `claims` when given. */
function runnersOf(schema: string, partitions: number, claims?: PartitionClaims): ProjectionRunner[] {
  return projectionUnits(() => [usersProjection], partitions).map(
    (projection) =>
      new ProjectionRunner({
        store: t.store,
        db: database.db,
        databaseUrl: env.databaseUrl,
        schema,
        projection,
        batchSize: 20,
        lock: claims?.lockFor(projection.name),
      }),
  );
}

/** How many locks of `schema`'s units are held, whoever holds them: one per held unit. */
async function heldLocks(schema: string, units: readonly string[]): Promise<number> {
  const keys = units.map((unit) => runnerLockKey(schema, unit));
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_locks l, unnest(${keys}::text[]) AS k(key)
     WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND l.classid::bigint = ((hashtext(k.key)::bigint >> 32) & 4294967295)
       AND l.objid::bigint = (hashtext(k.key)::bigint & 4294967295)`.execute(database.db);
  return rows[0]!.n;
}

async function checkpoints(schema: string): Promise<Record<string, number>> {
  const rows = await database.db
    .withSchema(schema)
    .selectFrom('projection_checkpoints')
    .select(['projection', 'position'])
    .orderBy('projection')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.projection, Number(r.position)]));
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(50);
  }
}

async function expectEqualToRebuild(schema: string, last: number) {
  const rebuilt = `${schema}_rebuilt`;
  await rebuildProjections({
    store: t.store,
    db: database.db,
    schema: rebuilt,
    projections: [usersProjection],
    migrations: readModelMigrations,
    untilSequence: last,
  });
  expect(await tableChecksums(database.db, schema, ['users'])).toEqual(
    await tableChecksums(database.db, rebuilt, ['users']),
  );
}

describe('partition claims', () => {
  it('spreads units over members fairly, and a member takes over what another lets go', async () => {
    const schema = `${env.schema}_claims`;
    await migrateReadModel(database.db as Kysely<unknown>, schema);
    const claimsA = new PartitionClaims({ databaseUrl: env.databaseUrl, schema, intervalMs: 200 });
    const claimsB = new PartitionClaims({ databaseUrl: env.databaseUrl, schema, intervalMs: 200 });
    const claimsC = new PartitionClaims({ databaseUrl: env.databaseUrl, schema, intervalMs: 200 });
    const a = runnersOf(schema, 4, claimsA);
    const b = runnersOf(schema, 4, claimsB);
    const units = a.map((r) => r.name);
    try {
      await claimsA.start(a);
      expect(claimsA.held()).toHaveLength(4);
      await writeUserHistory(t.store, 30, 2);

      await claimsB.start(b);
      await until(() => claimsA.held().length === 2 && claimsB.held().length === 2, 'a 2/2 split');
      expect([...claimsA.held(), ...claimsB.held()].sort()).toEqual(a.map((r) => r.name).sort());
      expect(await heldLocks(schema, units)).toBe(4);

      // A's member connection dies, and every lock on it: A's runners stop applying, and the units
      // are held again, once each, by whichever member claims them first.
      await writeUserHistory(t.store, 30, 2);
      await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ${claimsA.memberName}`.execute(
        database.db,
      );
      await until(
        async () =>
          claimsA.held().length + claimsB.held().length === 4 && (await heldLocks(schema, units)) === 4,
        'every unit held again, once',
      );
      expect([...claimsA.held(), ...claimsB.held()].sort()).toEqual(a.map((r) => r.name).sort());

      // A process given other projections is no member of these units' group: B's share stays all.
      await claimsC.start(
        projectionUnits(() => [userMemoriesProjection], 4).map(
          (projection) =>
            new ProjectionRunner({
              store: t.store,
              db: database.db,
              databaseUrl: env.databaseUrl,
              schema,
              projection,
              lock: claimsC.lockFor(projection.name),
            }),
        ),
      );
      expect(claimsC.held()).toHaveLength(4);
      await writeUserHistory(t.store, 30, 2);
      await claimsA.stop();
      await until(() => claimsB.held().length === 4, 'B holding all four');
      await writeUserHistory(t.store, 30, 2);
      const last = await t.store.lastStreamSequence();
      await Promise.all(b.map((r) => r.caughtUp(last)));
    } finally {
      await claimsA.stop();
      await claimsB.stop();
      await claimsC.stop();
    }
    const last = await t.store.lastStreamSequence();
    const users = Object.entries(await checkpoints(schema)).filter(([name]) => name.startsWith('users-'));
    expect(users.map(([, at]) => at)).toEqual([last, last, last, last]);
    await expectEqualToRebuild(schema, last);
  }, 60_000);

  it('asks one query at a time of its member connection, however many units are released at once', async () => {
    const schema = `${env.schema}_serial`;
    await migrateReadModel(database.db as Kysely<unknown>, schema);
    // The member connection is a pg.Client of its own; the kysely pool's are not counted here.
    const inFlight = new Map<pg.Client, number>();
    let most = 0;
    const query = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
      this: pg.Client,
      ...args
    ) {
      const result = (query as (...a: unknown[]) => unknown).apply(this, args);
      if (!(result instanceof Promise)) return result as never;
      inFlight.set(this, (inFlight.get(this) ?? 0) + 1);
      most = Math.max(most, inFlight.get(this)!);
      const done = () => inFlight.set(this, inFlight.get(this)! - 1);
      result.then(done, done);
      return result as never;
    });
    const claims = new PartitionClaims({ databaseUrl: env.databaseUrl, schema, intervalMs: 50 });
    try {
      const runners = runnersOf(schema, 8, claims);
      await claims.start(runners);
      expect(claims.held()).toHaveLength(8);
      await writeUserHistory(t.store, 10, 2);
      // Eight runners stop together, each releasing its lock while ticks go on.
      await claims.stop();
      expect(
        await heldLocks(
          schema,
          runners.map((r) => r.name),
        ),
      ).toBe(0);
      expect(inFlight.size).toBeGreaterThan(0);
      expect(most).toBe(1);
    } finally {
      spy.mockRestore();
      await claims.stop();
    }
  }, 60_000);

  it('seeds partitions from the whole projection (1 -> N) and refuses any other change of N', async () => {
    const schema = `${env.schema}_change`;
    await migrateReadModel(database.db as Kysely<unknown>, schema);
    await writeUserHistory(t.store, 20, 1);
    const [whole] = runnersOf(schema, 1);
    whole!.start();
    const first = await t.store.lastStreamSequence();
    await whole!.caughtUp(first);
    await whole!.stop();
    expect(await checkpoints(schema)).toEqual({ users: first });

    await writeUserHistory(t.store, 20, 1);
    const last = await t.store.lastStreamSequence();
    const four = runnersOf(schema, 4);
    for (const runner of four) runner.start();
    await Promise.all(four.map((r) => r.caughtUp(last)));
    await Promise.all(four.map((r) => r.stop()));
    expect(Object.keys(await checkpoints(schema))).toEqual(four.map((r) => r.name));
    await expectEqualToRebuild(schema, last);

    for (const partitions of [1, 2]) {
      const refusing = runnersOf(schema, partitions);
      const before = await checkpoints(schema);
      for (const runner of refusing) runner.start();
      await until(() => refusing.every((r) => r.refused !== null), `refusal with ${partitions}`);
      await Promise.all(refusing.map((r) => r.stop()));
      expect(refusing[0]!.refused).toMatch(/rebuild it with STREAM_PARTITIONS=/);
      expect(await checkpoints(schema)).toEqual(before);
    }
  }, 60_000);
});
