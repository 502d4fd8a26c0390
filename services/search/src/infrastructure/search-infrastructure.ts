import type { DynamicModule } from '@nestjs/common';
import { snapshotMacKey, type SearchConfig } from '@shop/config';
import { migrateSchema } from '@shop/db';
import type { DatabaseHandle } from '@shop/db';
import type { Logger } from '@shop/logging';
import { DATABASE, InfrastructureModule, writeSideProviders } from '@shop/service-kit';
import { searchMigrations } from '../payment/read-model/search-migrations';
import { searchProjections } from '../payment/read-model/search-projections';
import { SearchProjectionRunners } from './search-projection-runners';
import { SEARCH_DB } from './tokens';

/** The process's connections (the kit's), with SEARCH_SCHEMA migrated and projected in-process. */
export function searchInfrastructure(config: SearchConfig, logger: Logger): DynamicModule {
  return InfrastructureModule.forRoot({
    config,
    logger,
    clientName: 'search',
    poolSize: config.DATABASE_POOL_SIZE ?? 10,
    trackedSchema: config.SEARCH_SCHEMA,
    prepareDatabase: (db) => migrateSchema(db, config.SEARCH_SCHEMA, searchMigrations),
    providers: [
      {
        provide: SEARCH_DB,
        inject: [DATABASE],
        useFactory: (database: DatabaseHandle) => database.db.withSchema(config.SEARCH_SCHEMA),
      },
      SearchProjectionRunners,
      ...writeSideProviders(
        searchProjections,
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
