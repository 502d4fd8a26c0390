import { Kysely } from 'kysely';
import { AnalyticsConfig } from '@shop/config';
import { eventCatalogue } from '@shop/contracts';
import { createDatabase, migrateSchema } from '@shop/db';
import { connectNats, EventStore } from '@shop/eventstore';
import {
  natsCheck,
  OpsServer,
  postgresCheck,
  projectionBatchMetrics,
  registerHostedProjections,
  ServiceMetrics,
  startOpsServer,
} from '@shop/metrics';
import { Logger } from '@shop/logging';
import { ProjectionRunner } from '@shop/projections';
import { analyticsProjections } from './analytics-projections';
import { operatorReportRoute } from './operator-report-route';
import { AnalyticsDatabase } from './schema/analytics-database';
import { analyticsMigrations } from './schema/analytics-migrations';

export interface RunningAnalytics {
  /** /health, /ready, /metrics and, with a token configured, /api/analytics/report. */
  url: string;
  runners: ProjectionRunner[];
  metrics: ServiceMetrics;
  stop(): Promise<void>;
}

/**
 * The analytics consumer: its own projections of the stream into ANALYTICS_SCHEMA, run by the
 * same runtime as the read model (checkpoints, parking, rebuild), and its HTTP port.
 */
export async function startAnalytics(config: AnalyticsConfig, logger: Logger): Promise<RunningAnalytics> {
  const nc = await connectNats(config, 'analytics');
  const store = await EventStore.create(nc, {
    stream: config.EVENT_STREAM,
    subjectPrefix: config.EVENT_SUBJECT_PREFIX,
    catalogue: eventCatalogue,
    replicas: config.EVENT_STREAM_REPLICAS,
    owner: 'analytics',
  });
  await store.verifyStream();
  const database = createDatabase(config.DATABASE_URL, {
    applicationName: 'analytics',
    max: config.DATABASE_POOL_SIZE ?? 5,
  });
  const untyped = database.db as Kysely<unknown>;
  await migrateSchema(untyped, config.ANALYTICS_SCHEMA, analyticsMigrations);

  const metrics = new ServiceMetrics('analytics');
  const onBatch = projectionBatchMetrics(metrics);
  const runners = analyticsProjections.map(
    (projection) =>
      new ProjectionRunner({
        store,
        db: database.db,
        databaseUrl: config.DATABASE_URL,
        schema: config.ANALYTICS_SCHEMA,
        projection,
        batchSize: config.PROJECTOR_BATCH_SIZE,
        maxAttempts: config.PROJECTOR_MAX_ATTEMPTS,
        logger,
        onBatch,
      }),
  );
  const names = analyticsProjections.map((p) => p.name);
  registerHostedProjections(metrics, store, untyped, config.ANALYTICS_SCHEMA, names);
  for (const runner of runners) runner.start();

  const db = database.db.withSchema(config.ANALYTICS_SCHEMA) as unknown as Kysely<AnalyticsDatabase>;
  let ops: OpsServer;
  try {
    ops = await startOpsServer({
      metrics,
      // Analytics keeps nothing in Redis: NATS and Postgres are all it needs.
      checks: [natsCheck(nc, store.jsm), postgresCheck(untyped)],
      host: config.HOST,
      port: config.PORT,
      routes: config.ANALYTICS_OPERATOR_TOKEN
        ? operatorReportRoute(db, config.ANALYTICS_OPERATOR_TOKEN)
        : undefined,
    });
  } catch (error) {
    await Promise.all(runners.map((r) => r.stop()));
    await nc.drain().catch(() => undefined);
    await database.close();
    throw error;
  }
  logger.info({ projections: names, schema: config.ANALYTICS_SCHEMA, url: ops.url }, 'analytics started');

  return {
    url: ops.url,
    runners,
    metrics,
    async stop() {
      await ops.close();
      await Promise.all(runners.map((r) => r.stop()));
      await nc.drain().catch(() => undefined);
      await database.close();
    },
  };
}
