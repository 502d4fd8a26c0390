import { tracing } from './tracing';
import { chainIndexerEnv, loadConfigOrExit } from '@shop/config';
import { startChainIndexer } from '@shop/chain-indexer';
import { createDatabase } from '@shop/db';
import { openEventStore } from '@shop/eventstore';
import { createLogger } from '@shop/logging';
import { runService } from '@shop/run-service';

/** The chain indexer as its own process, for deployments that do not host it in a gateway. */
runService('chain-indexer', async () => {
  const config = loadConfigOrExit(chainIndexerEnv, 'chain-indexer');
  const logger = createLogger('chain-indexer', config.LOG_LEVEL);
  const store = await openEventStore(config, 'chain-indexer');
  const database = createDatabase(config.DATABASE_URL, {
    max: config.DATABASE_POOL_SIZE ?? 2,
    applicationName: 'chain-indexer',
  });
  const indexer = await startChainIndexer(config, store, database, logger);
  logger.info(
    { packageId: config.CHAIN_CONTRACT_ADDRESS, rpc: config.CHAIN_RPC_URL },
    'chain indexer started',
  );
  return {
    logger,
    async stop() {
      await indexer.stop();
      await store.nc.drain();
      await database.close();
      await tracing?.shutdown();
    },
  };
});
