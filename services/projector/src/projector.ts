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
import { CatchUpReads, PartitionClaims, ProjectionRunner, projectionUnits } from '@shop/projections';
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
  /** One per unit (a projection's partition, or a whole projection); the claims run those this process holds. */
  runners: ProjectionRunner[];
  claims: PartitionClaims;
  /** What /metrics serves: batches, checkpoints, lag, parked subjects and consumer redeliveries. */
  metrics: ServiceMetrics;
  /** What /ready checks. */
  checks: ReadinessCheck[];
  stop(): Promise<void>;
}

/**
 * Connects, migrates the read-model schema and runs the units it can claim: with
 * STREAM_PARTITIONS = N, each partitioned projection is N units, the others one; the processes
 * of a projector share the units fairly (see PartitionClaims).
 */
export async function startProjector(config: ProjectorConfig, logger: Logger): Promise<RunningProjector> {
  const nc: NatsConnection = await connectNats(config, 'projector');
  const database: DatabaseHandle = createDatabase(config.DATABASE_URL, {
    applicationName: 'projector',
    max: config.DATABASE_POOL_SIZE ?? 10,
  });
  const store = await EventStore.create(nc, {
    stream: config.EVENT_STREAM,
    subjectPrefix: config.EVENT_SUBJECT_PREFIX,
    catalogue: eventCatalogue,
    replicas: config.EVENT_STREAM_REPLICAS,
    owner: 'projector',
    dataKeys: await openDataKeyVault(
      database.db as Kysely<unknown>,
      config.SECRETS_SCHEMA,
      dataEncryptionKey(config),
    ),
  });
  await store.verifyStream();
  await migrateReadModel(database.db as Kysely<unknown>, config.READ_MODEL_SCHEMA);

  const redis = createRedis(config.REDIS_URL, config.REDIS_KEY_PREFIX);
  if (!(await redisReady(redis)))
    logger.warn({}, 'Redis is not reachable; cache invalidations will be retried');
  const wanted = config.PROJECTIONS;
  const listeners = {
    cart: cacheInvalidator(cartCache(redis)),
    orders: cacheInvalidator(ordersCache(redis)),
  };
  const projections = projectionUnits(
    () => readModelProjections(listeners).filter((p) => !wanted || wanted.includes(p.name)),
    config.STREAM_PARTITIONS,
  ) as ReadModelProjection[];
  const metrics = new ServiceMetrics('projector');
  const onBatch = projectionBatchMetrics(metrics);
  const claims = new PartitionClaims({
    databaseUrl: config.DATABASE_URL,
    schema: config.READ_MODEL_SCHEMA,
    logger,
  });
  // While behind, the runners held here read the stream once between them, as a rebuild does.
  const catchUpReads = new CatchUpReads(store, { maxMessages: config.PROJECTOR_CATCH_UP_BATCH_SIZE });
  const runners = projections.map(
    (projection) =>
      new ProjectionRunner({
        store,
        db: database.db,
        databaseUrl: config.DATABASE_URL,
        schema: config.READ_MODEL_SCHEMA,
        projection,
        batchSize: config.PROJECTOR_BATCH_SIZE,
        catchUpBatchSize: config.PROJECTOR_CATCH_UP_BATCH_SIZE,
        catchUpReads,
        batchWaitMs: config.PROJECTOR_BATCH_WAIT_MS,
        maxAttempts: config.PROJECTOR_MAX_ATTEMPTS,
        durableCommits: config.PROJECTOR_DURABLE_COMMITS,
        lock: claims.lockFor(projection.name),
        logger,
        onBatch,
      }),
  );
  const names = projections.map((p) => p.name);
  registerHostedProjections(metrics, store, database.db as Kysely<unknown>, config.READ_MODEL_SCHEMA, names);
  await claims.start(runners);
  logger.info(
    { projections: names, held: claims.held(), schema: config.READ_MODEL_SCHEMA },
    'projector started',
  );

  return {
    runners,
    metrics,
    claims,
    checks: [
      natsCheck(nc, store.jsm),
      postgresCheck(database.db as Kysely<unknown>),
      redisCheck(redis),
      {
        name: 'checkpoints',
        async check() {
          const refusals = runners.flatMap((r) => (r.refused ? [r.refused] : []));
          if (refusals.length > 0) throw new Error(refusals.join('; '));
        },
      },
    ],
    async stop() {
      await claims.stop();
      await nc.drain().catch(() => undefined);
      redis.disconnect();
      await database.close();
    },
  };
}
