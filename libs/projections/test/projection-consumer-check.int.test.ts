import { AckPolicy, DeliverPolicy } from 'nats';
import { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { migrateReadModel, usersProjection } from '@shop/read-models';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { consumerNameFor } from '../src/checkpoint-subject';
import { ProjectionRunner } from '../src/projection-runner';
import { writeUserHistory } from './fixtures';

/** A projection runner finding its consumer replaced by someone else: it says so, and misses nothing. */
const env = testEnvironment('projcheck');
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

describe('a projection runner binding to a consumer changed behind its back', () => {
  it('names each difference and re-creates it after its checkpoint, applying every event', async () => {
    const schema = `${env.schema}_check`;
    await migrateReadModel(database.db as Kysely<unknown>, schema);
    const ids = await writeUserHistory(t.store, 5, 1);
    const name = consumerNameFor(t.store, usersProjection.name);
    // Acknowledged through the end of the stream and pushing onto another subject, headers only.
    await t.store.jsm.consumers.add(t.store.stream, {
      durable_name: name,
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.New,
      deliver_subject: `elsewhere.${env.id}`,
      headers_only: true,
    });
    const warnings: { differences?: string[] }[] = [];
    const runner = new ProjectionRunner({
      store: t.store,
      db: database.db,
      databaseUrl: env.databaseUrl,
      schema,
      projection: usersProjection,
      logger: { info() {}, warn: (entry: { differences?: string[] }) => warnings.push(entry), error() {} },
    });
    runner.start();
    await runner.caughtUp(await t.store.lastStreamSequence());
    await runner.stop();
    const rows = await database.db.withSchema(schema).selectFrom('users').select('user_id').execute();
    expect(rows.map((r) => r.user_id).sort()).toEqual([...ids].sort());
    const differences = warnings.flatMap((w) => w.differences ?? []);
    for (const setting of ['ack_policy', 'deliver_subject', 'headers_only'])
      expect(differences).toContainEqual(expect.stringMatching(new RegExp(`^${setting}: `)));
  });
});
