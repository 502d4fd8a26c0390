import { Kysely } from 'kysely';
import { NatsConnection } from 'nats';
import { eventCatalogue } from '@shop/contracts';
import { dataEncryptionKey, ProjectorConfig } from '@shop/config';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { connectNats, EventStore } from '@shop/eventstore';
import { Logger } from '@shop/logging';
import {
  natsCheck,
  postgresCheck,
  projectionBatchMetrics,
  ReadinessCheck,
  redisCheck,
  registerHostedProjections,
  ServiceMetrics,
} from '@shop/metrics';
import { ProjectionRunner } from '@shop/projections';
import {
  cacheInvalidator,
  cartCache,
  migrateReadModel,
  ordersCache,
  ReadModelProjection,
  readModelProjections,
} from '@shop/read-models';
import { createRedis, redisReady } from '@shop/redis';
import { openDataKeyVault } from '@shop/wallets';

export interface RunningProjector {
  runners: ProjectionRunner[];
  /** What /metrics serves: batches, checkpoints, lag, parked subjects and consumer redeliveries. */
  metrics: ServiceMetrics;
  /** What /ready checks. */
  checks: ReadinessCheck[];
  stop(): Promise<void>;
}

/** Connects, migrates the read-model schema and starts one runner per projection. */
export async function startProjector(config: ProjectorConfig, logger: Logger): Promise<RunningProjector> {
  const nc: NatsConnection = await connectNats(config, 'projector');
  const database: DatabaseHandle = createDatabase(config.DATABASE_URL, { applicationName: 'projector' });
  const store = await EventStore.create(nc, {
    stream: config.EVENT_STREAM,
    subjectPrefix: config.EVENT_SUBJECT_PREFIX,
    catalogue: eventCatalogue,
    replicas: config.EVENT_STREAM_REPLICAS,
    dataKeys: await openDataKeyVault(
      database.db as Kysely<unknown>,
      config.SECRETS_SCHEMA,
      dataEncryptionKey(config),
    ),
  });
  await store.ensureStream();
  await migrateReadModel(database.db as Kysely<unknown>, config.READ_MODEL_SCHEMA);

  const redis = createRedis(config.REDIS_URL, config.REDIS_KEY_PREFIX);
  if (!(await redisReady(redis)))
    logger.warn({}, 'Redis is not reachable; cache invalidations will be retried');
  const wanted = config.PROJECTIONS;
  const projections: ReadModelProjection[] = readModelProjections({
    cart: cacheInvalidator(cartCache(redis)),
    orders: cacheInvalidator(ordersCache(redis)),
  }).filter((p) => !wanted || wanted.includes(p.name));
  const metrics = new ServiceMetrics('projector');
  const onBatch = projectionBatchMetrics(metrics);
  const runners = projections.map(
    (projection) =>
      new ProjectionRunner({
        store,
        db: database.db,
        databaseUrl: config.DATABASE_URL,
        schema: config.READ_MODEL_SCHEMA,
        projection,
        batchSize: config.PROJECTOR_BATCH_SIZE,
        maxAttempts: config.PROJECTOR_MAX_ATTEMPTS,
        durableCommits: config.PROJECTOR_DURABLE_COMMITS,
        logger,
        onBatch,
      }),
  );
  const names = projections.map((p) => p.name);
  registerHostedProjections(metrics, store, database.db as Kysely<unknown>, config.READ_MODEL_SCHEMA, names);
  for (const runner of runners) runner.start();
  logger.info(
    { projections: projections.map((p) => p.name), schema: config.READ_MODEL_SCHEMA },
    'projector started',
  );

  return {
    runners,
    metrics,
    checks: [natsCheck(nc, store.jsm), postgresCheck(database.db as Kysely<unknown>), redisCheck(redis)],
    async stop() {
      await Promise.all(runners.map((r) => r.stop()));
      await nc.drain().catch(() => undefined);
      redis.disconnect();
      await database.close();
    },
  };
}
