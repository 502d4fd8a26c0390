import { Kysely } from 'kysely';
import { createSuiClient } from '@shop/chain';
import { DatabaseHandle, migrateSchema } from '@shop/db';
import { EventStore } from '@shop/eventstore';
import { ChainIndexer, ChainIndexerLogger } from './chain-indexer';
import { IndexerDatabase, indexerMigrations } from './indexer-migrations';

export interface ChainIndexerSettings {
  CHAIN_RPC_URL: string;
  CHAIN_CONTRACT_ADDRESS: string;
  DATABASE_URL: string;
  INDEXER_SCHEMA: string;
  INDEXER_POLL_INTERVAL_MS: number;
}

/** Migrates the cursor table and starts polling; the one way both the gateway and the service start it. */
export async function startChainIndexer(
  settings: ChainIndexerSettings,
  store: EventStore,
  database: DatabaseHandle,
  logger: ChainIndexerLogger,
): Promise<ChainIndexer> {
  await migrateSchema(database.db as Kysely<unknown>, settings.INDEXER_SCHEMA, indexerMigrations);
  const indexer = new ChainIndexer({
    client: createSuiClient({ url: settings.CHAIN_RPC_URL }),
    packageId: settings.CHAIN_CONTRACT_ADDRESS,
    store,
    db: database.db.withSchema(settings.INDEXER_SCHEMA) as unknown as Kysely<IndexerDatabase>,
    databaseUrl: settings.DATABASE_URL,
    pollIntervalMs: settings.INDEXER_POLL_INTERVAL_MS,
    logger,
  });
  indexer.start();
  return indexer;
}
