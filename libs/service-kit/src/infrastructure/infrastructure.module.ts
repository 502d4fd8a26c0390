import {
  DynamicModule,
  Global,
  Inject,
  InjectionToken,
  Module,
  OnApplicationShutdown,
  Provider,
} from '@nestjs/common';
import type { Kysely } from 'kysely';
import type { NatsConnection } from 'nats';
import type { SharedConfig } from '@shop/config';
import type { DatabaseHandle } from '@shop/db';
import type { Logger } from '@shop/logging';
import type { PositionTracker } from '@shop/projections';
import type { Redis } from '@shop/redis';
import { CONFIG, DATABASE, LOGGER, NATS, POSITION_TRACKER, REDIS } from '../tokens';
import { databaseProvider } from './database.provider';
import { eventStoreProvider, natsProvider } from './event-store.providers';
import { positionTrackerProvider } from './position-tracker.provider';
import { redisProvider } from './redis.provider';

export interface InfrastructureOptions<C extends SharedConfig> {
  config: C;
  logger: Logger;
  /** NATS and Postgres list the process's connections under this name. */
  clientName: string;
  /** The most Postgres connections the process holds. */
  poolSize: number;
  /** Where the projections whose positions read-your-writes waits for keep their checkpoints. */
  trackedSchema: string;
  /** Runs before anything uses the pool: the service's own schema migrations. */
  prepareDatabase?: (db: Kysely<unknown>) => Promise<unknown>;
  /** The data-key vault that encrypts personal event fields, for a service that appends them. */
  dataKeys?: InjectionToken;
  /** The service's own providers, built on these connections and shared with all its modules. */
  providers: Provider[];
}

const tokenOf = (provider: Provider): InjectionToken =>
  typeof provider === 'function' ? provider : provider.provide;

/**
 * One NATS connection, Postgres pool, Redis client and event store for the whole process, with
 * the service's own providers on them; closed in order once HTTP has drained.
 */
@Global()
@Module({})
export class InfrastructureModule implements OnApplicationShutdown {
  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(DATABASE) private readonly database: DatabaseHandle,
    @Inject(POSITION_TRACKER) private readonly tracker: PositionTracker,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  static forRoot<C extends SharedConfig>(options: InfrastructureOptions<C>): DynamicModule {
    const { config } = options;
    const providers: Provider[] = [
      { provide: CONFIG, useValue: config },
      { provide: LOGGER, useValue: options.logger },
      eventStoreProvider(config, options.clientName, options.dataKeys),
      natsProvider,
      databaseProvider({
        url: config.DATABASE_URL,
        applicationName: options.clientName,
        max: options.poolSize,
        prepare: options.prepareDatabase,
      }),
      positionTrackerProvider(options.trackedSchema, config.EVENT_SUBJECT_PREFIX),
      redisProvider(config.REDIS_URL, config.REDIS_KEY_PREFIX),
      ...options.providers,
    ];
    return { module: InfrastructureModule, providers, exports: providers.map(tokenOf) };
  }

  /** Runs after the service's own providers have stopped: stop waiting, flush NATS, close the pool and Redis. */
  async onApplicationShutdown(): Promise<void> {
    this.tracker.stop();
    await this.nc.drain().catch(() => undefined);
    await this.database.close();
    // QUIT lets replies in flight arrive; without a connection there is nothing to wait for.
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
