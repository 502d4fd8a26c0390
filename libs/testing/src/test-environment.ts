import { randomBytes } from 'node:crypto';
import { NatsConnection } from 'nats';
import pg from 'pg';
import { Kysely } from 'kysely';
import { dataEncryptionKey } from '@shop/config';
import { eventCatalogue } from '@shop/contracts';
import { createDatabase } from '@shop/db';
import { connectNats, EventStore, NatsSettings, provisionEventStream } from '@shop/eventstore';
import { DataKeyVault, openDataKeyVault } from '@shop/wallets';

export interface TestEnvironment {
  id: string;
  natsUrl: string;
  databaseUrl: string;
  redisUrl: string;
  stream: string;
  subjectPrefix: string;
  schema: string;
  redisKeyPrefix: string;
  /** The variables a service under test needs to use exactly these resources. */
  env: Record<string, string>;
}

/**
 * Names unique to one test file inside one run: its own stream, subject prefix, read-model
 * schema and Redis key prefix, in the run's own database (see scripts/test/global-setup.ts).
 */
export function testEnvironment(label: string): TestEnvironment {
  const id = `${label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 12)}${randomBytes(4).toString('hex')}`;
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const runId = process.env.TEST_RUN_ID ?? 'local';
  const stream = `T_${runId}_${id}`.toUpperCase();
  const subjectPrefix = `t${runId}${id}`;
  const schema = `rm_${id}`;
  const redisKeyPrefix = `test:${runId}:${id}:`;
  return {
    id,
    natsUrl,
    databaseUrl,
    redisUrl,
    stream,
    subjectPrefix,
    schema,
    redisKeyPrefix,
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      NATS_URL: natsUrl,
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      EVENT_STREAM: stream,
      EVENT_SUBJECT_PREFIX: subjectPrefix,
      READ_MODEL_SCHEMA: schema,
      SECRETS_SCHEMA: `${schema}_secrets`,
      INDEXER_SCHEMA: `${schema}_indexer`,
      REACTIONS_SCHEMA: `${schema}_reactions`,
      REDIS_KEY_PREFIX: redisKeyPrefix,
      METRICS_PORT: '0',
    },
  };
}

export interface TestEventStore {
  nc: NatsConnection;
  store: EventStore;
  /** The data keys of the environment's secrets schema, the ones its services use too. */
  dataKeys: DataKeyVault;
  close(): Promise<void>;
}

/** The data keys a service started with `env.env` uses (its derived development master key). */
export function testDataEncryptionKey(env: TestEnvironment): Buffer {
  return dataEncryptionKey({
    NODE_ENV: 'test',
    DATABASE_URL: env.databaseUrl,
    SECRETS_SCHEMA: env.env.SECRETS_SCHEMA!,
  });
}

/**
 * The operator step for the environment's stream and snapshot bucket, before any service of it
 * starts (services only bind to them). Tests run it as the open server's default user, or as
 * the operator of a server with users (`credentials`).
 */
export async function provisionTestStream(
  env: TestEnvironment,
  credentials: Omit<NatsSettings, 'NATS_URL'> = {},
): Promise<void> {
  const nc = await connectNats({ NATS_URL: env.natsUrl, ...credentials }, `test-operator-${env.id}`);
  try {
    await provisionEventStream(nc, {
      stream: env.stream,
      subjectPrefix: env.subjectPrefix,
      replicas: Number(env.env.EVENT_STREAM_REPLICAS ?? 1),
    });
  } finally {
    await nc.close();
  }
}

/** A connected event store on the environment's own stream, deleted again on close. */
export async function openTestEventStore(env: TestEnvironment): Promise<TestEventStore> {
  const nc = await connectNats(env.natsUrl, `test-${env.id}`);
  const database = createDatabase(env.databaseUrl, { max: 2, applicationName: `test-keys-${env.id}` });
  const dataKeys = await openDataKeyVault(
    database.db as Kysely<unknown>,
    env.env.SECRETS_SCHEMA!,
    testDataEncryptionKey(env),
  );
  const store = await EventStore.create(nc, {
    stream: env.stream,
    subjectPrefix: env.subjectPrefix,
    catalogue: eventCatalogue,
    dataKeys,
  });
  await store.provision();
  return {
    nc,
    store,
    dataKeys,
    async close() {
      await store.jsm.streams.delete(env.stream).catch(() => undefined);
      await store.jsm.streams.delete(`KV_${store.snapshots.bucket}`).catch(() => undefined);
      await nc.drain();
      await database.close();
    },
  };
}

export async function dropSchema(env: TestEnvironment): Promise<void> {
  const client = new pg.Client({ connectionString: env.databaseUrl });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${env.schema} CASCADE`);
  await client.query(`DROP SCHEMA IF EXISTS ${env.schema}_secrets CASCADE`);
  await client.query(`DROP SCHEMA IF EXISTS ${env.schema}_indexer CASCADE`);
  await client.query(`DROP SCHEMA IF EXISTS ${env.schema}_reactions CASCADE`);
  await client.end();
}
