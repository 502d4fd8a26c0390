import { randomUUID } from 'node:crypto';
import { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { migrateReadModel, usersProjection } from '@shop/read-models';
import { dropSchema, openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { BatchPath, ProjectionRunner } from '../src/projection-runner';
import { writeUserHistory } from './fixtures';

const env = testEnvironment('batchwait');
let t: TestEventStore;
let database: DatabaseHandle;

beforeAll(async () => {
  t = await openTestEventStore(env);
  database = createDatabase(env.databaseUrl, { max: 4 });
  await migrateReadModel(database.db as Kysely<unknown>, env.schema);
});
afterAll(async () => {
  await t.close();
  await database.close();
  await dropSchema(env);
});

describe('a lone message waiting for company', () => {
  it('shares one batch with what arrives within the wait, and is applied alone after it otherwise', async () => {
    const batches: { size: number; path: BatchPath }[] = [];
    const runner = new ProjectionRunner({
      store: t.store,
      db: database.db,
      databaseUrl: env.databaseUrl,
      schema: env.schema,
      projection: usersProjection,
      // Long enough that two appends made together always fall inside it, on any machine.
      batchWaitMs: 2000,
      onBatch: (_outcome, _name, size, path) => batches.push({ size, path }),
    });
    runner.start();
    try {
      await writeUserHistory(t.store, 2, 0);
      await runner.caughtUp(await t.store.lastStreamSequence());
      expect(batches).toEqual([{ size: 2, path: 'live' }]);

      await writeUserHistory(t.store, 1, 0, [randomUUID()]);
      await runner.caughtUp(await t.store.lastStreamSequence());
      expect(batches).toEqual([
        { size: 2, path: 'live' },
        { size: 1, path: 'live' },
      ]);
    } finally {
      await runner.stop();
    }
  });
});
