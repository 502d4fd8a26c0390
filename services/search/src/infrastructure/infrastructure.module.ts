import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Kysely } from 'kysely';
import type { NatsConnection } from 'nats';
import type { SearchConfig } from '@shop/config';
import { createDatabase, migrateSchema } from '@shop/db';
import type { DatabaseHandle } from '@shop/db';
import { Aggregates, CommandExecutor, DeciderRunner } from '@shop/commands';
import { EventStore, openEventStore } from '@shop/eventstore';
import type { Logger } from '@shop/observability';
import { PositionTracker, ProjectionRunner, ReadModelPositions } from '@shop/projections';
import { createRedis, redisReady } from '@shop/redis';
import type { Redis } from '@shop/redis';
import { searchMigrations } from '../payment/read-model/search-migrations';
import { searchProjections } from '../payment/read-model/search-projections';
import {
  CONFIG,
  DATABASE,
  EVENT_STORE,
  LOGGER,
  NATS,
  POSITION_TRACKER,
  PROJECTION_RUNNER,
  REDIS,
  SEARCH_DB,
} from './tokens';

/**
 * One NATS connection, Postgres pool, Redis client and event store for the process, and this
 * service's own projections, kept up to date in-process in SEARCH_SCHEMA.
 */
@Global()
@Module({})
export class InfrastructureModule implements OnApplicationShutdown {
  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(DATABASE) private readonly database: DatabaseHandle,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(PROJECTION_RUNNER) private readonly runners: ProjectionRunner[],
    @Inject(POSITION_TRACKER) private readonly tracker: PositionTracker,
  ) {}

  static forRoot(config: SearchConfig, logger: Logger): DynamicModule {
    return {
      module: InfrastructureModule,
      providers: [
        { provide: CONFIG, useValue: config },
        { provide: LOGGER, useValue: logger },
        { provide: EVENT_STORE, useFactory: () => openEventStore(config, 'search') },
        { provide: NATS, inject: [EVENT_STORE], useFactory: (store: EventStore) => store.nc },
        {
          provide: DATABASE,
          useFactory: async () => {
            const database = createDatabase(config.DATABASE_URL, { applicationName: 'search', max: 10 });
            await migrateSchema(database.db as Kysely<unknown>, config.SEARCH_SCHEMA, searchMigrations);
            return database;
          },
        },
        {
          provide: SEARCH_DB,
          inject: [DATABASE],
          useFactory: (database: DatabaseHandle) => database.db.withSchema(config.SEARCH_SCHEMA),
        },
        {
          provide: PROJECTION_RUNNER,
          inject: [EVENT_STORE, DATABASE],
          useFactory: (store: EventStore, database: DatabaseHandle) =>
            searchProjections.map((projection) => {
              const runner = new ProjectionRunner({
                store,
                db: database.db,
                databaseUrl: config.DATABASE_URL,
                schema: config.SEARCH_SCHEMA,
                projection,
                logger,
              });
              runner.start();
              return runner;
            }),
        },
        {
          provide: POSITION_TRACKER,
          inject: [NATS, DATABASE],
          useFactory: async (nc: NatsConnection, database: DatabaseHandle) => {
            const tracker = new PositionTracker(
              nc,
              database.db,
              config.SEARCH_SCHEMA,
              config.EVENT_SUBJECT_PREFIX,
            );
            await tracker.start();
            return tracker;
          },
        },
        {
          provide: REDIS,
          useFactory: async () => {
            const redis = createRedis(config.REDIS_URL, config.REDIS_KEY_PREFIX);
            // Redis holds only caches, locks and counters: start without it rather than not at all.
            if (!(await redisReady(redis))) logger.warn({ url: config.REDIS_URL }, 'Redis not reachable yet');
            return redis;
          },
        },
        {
          provide: CommandExecutor,
          inject: [EVENT_STORE, POSITION_TRACKER],
          useFactory: (store: EventStore, tracker: PositionTracker) =>
            new CommandExecutor(
              new DeciderRunner(store),
              new ReadModelPositions(tracker, searchProjections, config.READ_YOUR_WRITES_TIMEOUT_MS),
            ),
        },
        {
          provide: Aggregates,
          inject: [CommandExecutor],
          useFactory: (e: CommandExecutor) => new Aggregates(e),
        },
      ],
      exports: [
        CONFIG,
        LOGGER,
        NATS,
        EVENT_STORE,
        DATABASE,
        SEARCH_DB,
        POSITION_TRACKER,
        REDIS,
        CommandExecutor,
        Aggregates,
      ],
    };
  }

  /** After HTTP and the NATS transport have drained: stop projecting, then close every connection. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.runners.map((runner) => runner.stop()));
    this.tracker.stop();
    await this.nc.drain().catch(() => undefined);
    await this.database.close();
    await this.redis.quit().catch(() => undefined);
  }
}
