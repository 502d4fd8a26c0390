import { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionOf } from '@shop/contracts';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { migrateReadModel, usersProjection } from '@shop/read-models';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { consumerNameFor } from '../src/checkpoint-subject';
import { projectionUnits } from '../src/projection-partitions';
import { ProjectionRunner } from '../src/projection-runner';
import { tableChecksums } from '../src/table-checksums';
import { writeUserHistory } from './fixtures';

const env = testEnvironment('partdel');
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

/** Runs `units` into `schema` until each has reached the stream's end, then stops them. */
async function project(schema: string, partitions: number): Promise<ProjectionRunner[]> {
  await migrateReadModel(database.db as Kysely<unknown>, schema);
  const runners = projectionUnits(() => [usersProjection], partitions).map(
    (projection) =>
      new ProjectionRunner({
        store: t.store,
        db: database.db,
        databaseUrl: env.databaseUrl,
        schema,
        projection,
        // Every message through the partition's consumer, none through a catch-up read.
        catchUpBatchSize: 0,
      }),
  );
  const end = await t.store.lastStreamSequence();
  for (const runner of runners) runner.start();
  // A partition whose last own message lies before the end reaches it by following it while idle.
  await Promise.all(runners.map((runner) => runner.caughtUp(end)));
  await Promise.all(runners.map((runner) => runner.stop()));
  return runners;
}

describe('partitions of a projection (STREAM_PARTITIONS=4)', () => {
  it("deliver each partition's consumer only its own messages, and give the read model one partition gives", async () => {
    const commitsPerUser = 3;
    const ids = await writeUserHistory(t.store, 48, commitsPerUser - 1);
    const total = ids.length * commitsPerUser;
    const perPartition = [0, 0, 0, 0];
    for (const id of ids) perPartition[partitionOf(id, 4)]! += commitsPerUser;
    expect(perPartition.every((count) => count > 0)).toBe(true);

    const partitioned = await project(`${env.schema}_four`, 4);
    const delivered = await Promise.all(
      partitioned.map(async (runner) => {
        const info = await t.store.jsm.consumers.info(t.store.stream, consumerNameFor(t.store, runner.name));
        return info.delivered.consumer_seq;
      }),
    );
    expect(delivered).toEqual(perPartition);
    expect(delivered.reduce((a, b) => a + b, 0)).toBe(total);
    // Every partition's checkpoint stands at the stream's end, past the other partitions' messages.
    const end = await t.store.lastStreamSequence();
    expect(partitioned.map((runner) => runner.checkpoint)).toEqual([end, end, end, end]);

    await project(`${env.schema}_one`, 1);
    const [four, one] = await Promise.all(
      [`${env.schema}_four`, `${env.schema}_one`].map((schema) =>
        tableChecksums(database.db, schema, usersProjection.tables),
      ),
    );
    expect(four).toEqual(one);
    expect(Object.keys(four!)).toEqual([...usersProjection.tables]);
  }, 30_000);
});
