import type { DynamicModule } from '@nestjs/common';
import { snapshotMacKey, type GatewayConfig } from '@shop/config';
import type { DatabaseHandle } from '@shop/db';
import type { Logger } from '@shop/logging';
import { readModel, readModelProjections } from '@shop/read-models';
import { RateLimiter } from '@shop/redis';
import type { Redis } from '@shop/redis';
import { InfrastructureModule, writeSideProviders } from '@shop/service-kit';
import { CatalogImageAddress } from '../catalog-images/catalog-image-address';
import { PendingOnChainCheckouts } from '../onchain/pending-onchain-checkouts';
import { cartContractProvider, suiClientProvider } from './chain.providers';
import type { GatewayOverrides } from './gateway-overrides';
import { dataKeysProvider, walletVaultProvider } from './secrets.providers';
import { DATA_KEYS, DATABASE, RATE_LIMITER, READ_DB, REDIS, REFRESH_RATE_LIMITER } from './tokens';
import { chatModelProvider, productSearchProvider, providerClientProvider } from './upstream.providers';

/** The process's connections (the kit's) and the gateway's clients, vaults and read model on them. */
export function gatewayInfrastructure(
  config: GatewayConfig,
  logger: Logger,
  overrides: GatewayOverrides = {},
): DynamicModule {
  return InfrastructureModule.forRoot({
    config,
    logger,
    clientName: 'gateway',
    poolSize: config.DATABASE_POOL_SIZE ?? 20,
    trackedSchema: config.READ_MODEL_SCHEMA,
    dataKeys: DATA_KEYS,
    providers: [
      dataKeysProvider(config),
      walletVaultProvider(config),
      {
        provide: READ_DB,
        inject: [DATABASE],
        useFactory: (database: DatabaseHandle) => readModel(database.db, config.READ_MODEL_SCHEMA),
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
        provide: REFRESH_RATE_LIMITER,
        inject: [REDIS],
        useFactory: (redis: Redis) =>
          new RateLimiter(redis, 'session-refresh', config.SESSION_REFRESH_RATE_LIMIT_RPM, 60_000, (error) =>
            logger.warn({ err: error }, 'session refresh limit not enforced: Redis unavailable'),
          ),
      },
      providerClientProvider(config),
      suiClientProvider(config),
      cartContractProvider(config),
      { provide: CatalogImageAddress, useValue: new CatalogImageAddress(config.HOST, config.PORT) },
      productSearchProvider(config),
      chatModelProvider(config, overrides),
      PendingOnChainCheckouts,
      ...writeSideProviders(
        readModelProjections(),
        config.READ_YOUR_WRITES_TIMEOUT_MS,
        {
          maxEntries: config.AGGREGATE_CACHE_MAX_ENTRIES,
          maxBytes: config.AGGREGATE_CACHE_MAX_BYTES,
        },
        config.AGGREGATE_SNAPSHOT_EVERY,
        snapshotMacKey(config),
        config.STREAM_PARTITIONS,
      ),
    ],
  });
}
