import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { usersProjection } from '@shop/read-models';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { rebuildAgainstLive } from '../src/live-rebuild';
import { AnyProjection } from '../src/projection';
import { projectionUnits } from '../src/projection-partitions';
import { ProjectionRunner } from '../src/projection-runner';
import { rebuildProjections } from '../src/rebuild';
import { compareTables } from '../src/table-comparison';
import { writeUserHistory } from './fixtures';
import {
  countedEvents,
  countingMigrations,
  countingProjection,
  keepAppending,
  startLiveReadModel,
  streamEvents,
} from './live-read-model';

const env = testEnvironment('partrebuild');
let t: TestEventStore;
let database: DatabaseHandle;

beforeAll(async () => {
  t = await openTestEventStore(env);
  database = createDatabase(env.databaseUrl, { max: 8 });
  await writeUserHistory(t.store, 80, 2);
});
afterAll(async () => {
  await t.close();
  await database.close();
});

/** The users projection and the event counter (a row per subject: one aggregate's), split `partitions` ways. */
const unitsOf = (partitions: number): AnyProjection[] =>
  projectionUnits(() => [usersProjection, { ...countingProjection, partitioned: true }], partitions);

async function checkpoints(schema: string): Promise<Map<string, number>> {
  const rows = await database.db
    .withSchema(schema)
    .selectFrom('projection_checkpoints')
    .select(['projection', 'position'])
    .execute();
  return new Map(rows.map((r) => [r.projection as string, Number(r.position)]));
}

describe('a partitioned rebuild', () => {
  it('replaces a live read model of 2 partitions with one of 4, written side by side, and runners of 4 continue from it', async () => {
    const live = `${env.schema}_live`;
    const projector = await startLiveReadModel(env, t.store, live, unitsOf(2));
    const appender = keepAppending(t.store);
    await projector.caughtUp(await t.store.lastStreamSequence());
    await appender.stop();
    await projector.caughtUp(await t.store.lastStreamSequence());
    // The operator stops the projectors of 2 partitions before the ones of 4 start.
    await projector.stop();
    const stoppedAt = await t.store.lastStreamSequence();

    const four = unitsOf(4);
    const result = await rebuildAgainstLive({
      store: t.store,
      db: database.db,
      liveSchema: live,
      scratchSchema: `${live}_rebuild`,
      projections: four,
      migrations: countingMigrations,
      batchSize: 100,
      swap: { wholeSchema: false, asideSchema: `${live}_old` },
    });
    expect(result).toMatchObject({ equal: true, swapped: true });
    // Only the new partitioning is left, every partition at the position the old ones stopped at.
    expect(await checkpoints(live)).toEqual(new Map(four.map((u) => [u.name, stoppedAt])));

    await writeUserHistory(t.store, 20, 1);
    const last = await t.store.lastStreamSequence();
    const runners = four.map(
      (projection) =>
        new ProjectionRunner({
          store: t.store,
          db: database.db,
          databaseUrl: env.databaseUrl,
          schema: live,
          projection,
          batchSize: 50,
        }),
    );
    for (const runner of runners) runner.start();
    await Promise.all(runners.map((r) => r.caughtUp(last)));
    await Promise.all(runners.map((r) => r.stop()));
    expect(runners.map((r) => r.refused)).toEqual(runners.map(() => null));

    // Each event counted once across the old partitions, the rebuild and the new partitions.
    expect(await countedEvents(database.db, live)).toBe(await streamEvents(t.store, last));
    const fresh = `${live}_fresh`;
    await rebuildProjections({
      store: t.store,
      db: database.db,
      schema: fresh,
      projections: unitsOf(4),
      migrations: countingMigrations,
      untilSequence: last,
    });
    const tables = await compareTables(database.db, live, fresh, ['users', 'event_counts']);
    expect(tables.filter((c) => !c.equal)).toEqual([]);
    expect(await checkpoints(fresh)).toEqual(new Map(four.map((u) => [u.name, last])));
  }, 120_000);
});
