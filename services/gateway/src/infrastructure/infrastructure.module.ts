import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { createChatModel } from '@shop/assistant';
import { dataEncryptionKey } from '@shop/config';
import type { GatewayConfig } from '@shop/config';
import { Kysely } from 'kysely';
import { createDatabase, migrateSchema, readModel, secretsMigrations } from '@shop/db';
import type { SecretsDatabase } from '@shop/db';
import type { DatabaseHandle } from '@shop/db';
import { Aggregates, CommandExecutor, DeciderRunner } from '@shop/commands';
import { EventStore, openEventStore } from '@shop/eventstore';
import type { Logger } from '@shop/observability';
import { PositionTracker, ReadModelPositions } from '@shop/projections';
import { readModelProjections } from '@shop/read-models';
import { CartContractClient, createSuiClient } from '@shop/chain';
import type { SuiClient } from '@mysten/sui/client';
import { createProductSearch } from '@shop/product-search';
import { ProviderClient } from '@shop/provider';
import { createRedis, RateLimiter, redisReady } from '@shop/redis';
import type { Redis } from '@shop/redis';
import { DataKeyVault, encryptionKeyFromHex, openDataKeyVault, WalletKeyVault } from '@shop/wallets';
import type { GatewayOverrides } from './gateway-overrides';
import { CatalogImageAddress } from '../catalog-images/catalog-image-address';
import { servesCatalogImages } from '../catalog-images/serves-catalog-images';
import { GuardedModel } from '../chat/guarded-model';
import {
  CHAT_MODEL,
  CONFIG,
  DATA_KEYS,
  DATABASE,
  EVENT_STORE,
  LOGGER,
  NATS,
  POSITION_TRACKER,
  CART_CONTRACT,
  PRODUCT_SEARCH,
  PROVIDER,
  RATE_LIMITER,
  READ_DB,
  REDIS,
  SUI_CLIENT,
  WALLET_VAULT,
} from './tokens';
import { PendingOnChainCheckouts } from '../onchain/pending-onchain-checkouts';

/** One NATS connection, one Postgres pool and one event store for the whole process. */
@Global()
@Module({})
export class InfrastructureModule implements OnApplicationShutdown {
  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(DATABASE) private readonly database: DatabaseHandle,
    @Inject(POSITION_TRACKER) private readonly tracker: PositionTracker,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  static forRoot(config: GatewayConfig, logger: Logger, overrides: GatewayOverrides = {}): DynamicModule {
    return {
      module: InfrastructureModule,
      providers: [
        { provide: CONFIG, useValue: config },
        { provide: LOGGER, useValue: logger },
        {
          provide: DATA_KEYS,
          inject: [DATABASE],
          useFactory: (database: DatabaseHandle) =>
            openDataKeyVault(
              database.db as Kysely<unknown>,
              config.SECRETS_SCHEMA,
              dataEncryptionKey(config),
            ),
        },
        {
          provide: EVENT_STORE,
          inject: [DATA_KEYS],
          useFactory: (keys: DataKeyVault) => openEventStore(config, 'gateway', keys),
        },
        { provide: NATS, inject: [EVENT_STORE], useFactory: (store: EventStore) => store.nc },
        {
          provide: DATABASE,
          useFactory: () => createDatabase(config.DATABASE_URL, { applicationName: 'gateway', max: 20 }),
        },
        {
          provide: READ_DB,
          inject: [DATABASE],
          useFactory: (database: DatabaseHandle) => readModel(database.db, config.READ_MODEL_SCHEMA),
        },
        {
          provide: POSITION_TRACKER,
          inject: [NATS, DATABASE],
          useFactory: async (nc: NatsConnection, database: DatabaseHandle) => {
            const tracker = new PositionTracker(
              nc,
              database.db,
              config.READ_MODEL_SCHEMA,
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
            if (!(await redisReady(redis)))
              logger.warn({}, 'Redis is not reachable; serving without cache or rate limits');
            return redis;
          },
        },
        {
          provide: RATE_LIMITER,
          inject: [REDIS],
          useFactory: (redis: Redis) =>
            new RateLimiter(redis, 'user', config.RATE_LIMIT_RPM, 60_000, (error) =>
              logger.warn({ err: error }, 'rate limit not enforced: Redis unavailable'),
            ),
        },
        {
          provide: PROVIDER,
          useValue: config.PROVIDER_API_URL
            ? new ProviderClient({
                baseUrl: config.PROVIDER_API_URL,
                apiKey: config.PROVIDER_API_KEY ?? '',
                timeoutMs: config.PROVIDER_TIMEOUT_MS,
              })
            : null,
        },
        {
          provide: WALLET_VAULT,
          inject: [DATABASE],
          useFactory: async (database: DatabaseHandle) => {
            if (!config.WALLET_ENCRYPTION_KEY) return null;
            await migrateSchema(database.db as Kysely<unknown>, config.SECRETS_SCHEMA, secretsMigrations);
            const secrets = database.db.withSchema(
              config.SECRETS_SCHEMA,
            ) as unknown as Kysely<SecretsDatabase>;
            return new WalletKeyVault(secrets, encryptionKeyFromHex(config.WALLET_ENCRYPTION_KEY));
          },
        },
        {
          provide: SUI_CLIENT,
          useValue: config.CHAIN_RPC_URL
            ? createSuiClient({ url: config.CHAIN_RPC_URL, requestTimeoutMs: config.CHAIN_RPC_TIMEOUT_MS })
            : null,
        },
        {
          provide: CART_CONTRACT,
          inject: [SUI_CLIENT],
          useFactory: (client: SuiClient | null) =>
            client &&
            config.CHAIN_CONTRACT_ADDRESS &&
            config.CHAIN_CART_REGISTRY_ID &&
            config.CHAIN_RELAYER_PRIVATE_KEY
              ? new CartContractClient({
                  client,
                  packageId: config.CHAIN_CONTRACT_ADDRESS,
                  registryId: config.CHAIN_CART_REGISTRY_ID,
                  relayer: config.CHAIN_RELAYER_PRIVATE_KEY,
                })
              : null,
        },
        { provide: CatalogImageAddress, useValue: new CatalogImageAddress(config.HOST, config.PORT) },
        {
          provide: PRODUCT_SEARCH,
          inject: [NATS, CatalogImageAddress],
          useFactory: (nc: NatsConnection, images: CatalogImageAddress) =>
            config.PRODUCT_SERVICE === 'mock'
              ? // The catalogue's own image host does not exist; outside production the gateway serves them.
                createProductSearch({
                  mode: 'mock',
                  imageUrl: servesCatalogImages(config) ? images.urlOf : undefined,
                })
              : createProductSearch({ mode: 'scraping', nc, subjectPrefix: config.EVENT_SUBJECT_PREFIX }),
        },
        {
          provide: CHAT_MODEL,
          useValue: new GuardedModel(overrides.chatModel ?? createChatModel(config), {
            timeoutMs: config.CHAT_MODEL_TIMEOUT_MS,
          }),
        },
        PendingOnChainCheckouts,
        {
          provide: ReadModelPositions,
          inject: [POSITION_TRACKER],
          useFactory: (tracker: PositionTracker) =>
            new ReadModelPositions(tracker, readModelProjections(), config.READ_YOUR_WRITES_TIMEOUT_MS),
        },
        {
          provide: CommandExecutor,
          inject: [EVENT_STORE, ReadModelPositions],
          useFactory: (store: EventStore, positions: ReadModelPositions) =>
            new CommandExecutor(new DeciderRunner(store), positions),
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
        READ_DB,
        POSITION_TRACKER,
        REDIS,
        RATE_LIMITER,
        PROVIDER,
        WALLET_VAULT,
        DATA_KEYS,
        PRODUCT_SEARCH,
        CatalogImageAddress,
        CHAT_MODEL,
        SUI_CLIENT,
        CART_CONTRACT,
        ReadModelPositions,
        CommandExecutor,
        Aggregates,
        PendingOnChainCheckouts,
      ],
    };
  }

  /** After HTTP has drained: stop waiting, flush NATS, close the pool. */
  async onApplicationShutdown(): Promise<void> {
    this.tracker.stop();
    this.redis.disconnect();
    await this.nc.drain().catch(() => undefined);
    await this.database.close();
  }
}
