import { randomUUID } from 'node:crypto';
import { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionOf } from '@shop/contracts';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { migrateReadModel, usersProjection } from '@shop/read-models';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { PositionTracker } from '../src/position-tracker';
import { projectionUnits } from '../src/projection-partitions';
import { ProjectionRunner } from '../src/projection-runner';
import { ReadModelPositions } from '../src/read-model-positions';
import { writeUserHistory } from './fixtures';

const env = testEnvironment('partryw');
let t: TestEventStore;
let database: DatabaseHandle;

beforeAll(async () => {
  t = await openTestEventStore(env);
  database = createDatabase(env.databaseUrl, { max: 3 });
});
afterAll(async () => {
  await t.close();
  await database.close();
});

/** A user id in partition `partition` of `count`. */
function idIn(partition: number, count: number): string {
  for (;;) {
    const id = randomUUID();
    if (partitionOf(id, count) === partition) return id;
  }
}

describe('read-your-writes with partitions', () => {
  it("answers once the write's own partition has applied it, whatever the other partitions do", async () => {
    const schema = `${env.schema}_ryw`;
    await migrateReadModel(database.db as Kysely<unknown>, schema);
    const tracker = new PositionTracker(t.nc, database.db, schema, env.subjectPrefix);
    await tracker.start();
    const positions = new ReadModelPositions(tracker, [usersProjection], 1000, 4);
    // Only partition 1 runs: the others stand still, as if their holder were busy or gone.
    const unit = projectionUnits(() => [usersProjection], 4)[1]!;
    const runner = new ProjectionRunner({
      store: t.store,
      db: database.db,
      databaseUrl: env.databaseUrl,
      schema,
      projection: unit,
    });
    runner.start();
    try {
      const [mine] = await writeUserHistory(t.store, 1, 0, [idIn(1, 4)]);
      const mineAt = await t.store.lastSequence(t.store.subject('user', mine!));
      const started = performance.now();
      expect(await positions.waitForCommit('user', mineAt, mine)).toBe(true);
      expect(performance.now() - started).toBeLessThan(1000);

      const [other] = await writeUserHistory(t.store, 1, 0, [idIn(2, 4)]);
      const otherAt = await t.store.lastSequence(t.store.subject('user', other!));
      expect(await positions.waitForCommit('user', otherAt, other)).toBe(false);
      // Without the id, every partition is waited for.
      expect(await positions.waitReadable('user', mineAt)).toBe(false);
    } finally {
      tracker.stop();
      await runner.stop();
    }
  }, 30_000);
});
