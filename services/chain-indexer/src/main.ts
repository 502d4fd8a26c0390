import { chainIndexerEnv, loadConfigOrExit } from '@shop/config';
import { startChainIndexer } from '@shop/chain-indexer';
import { createDatabase } from '@shop/db';
import { openEventStore } from '@shop/eventstore';
import { createLogger } from '@shop/observability';

/** The chain indexer as its own process, for deployments that do not host it in a gateway. */
async function main(): Promise<void> {
  const config = loadConfigOrExit(chainIndexerEnv, 'chain-indexer');
  const logger = createLogger('chain-indexer', config.LOG_LEVEL);
  const store = await openEventStore(config, 'chain-indexer');
  const database = createDatabase(config.DATABASE_URL, { max: 2, applicationName: 'chain-indexer' });
  const indexer = await startChainIndexer(config, store, database, logger);
  logger.info(
    { packageId: config.CHAIN_CONTRACT_ADDRESS, rpc: config.CHAIN_RPC_URL },
    'chain indexer started',
  );
  const stop = () => {
    indexer
      .stop()
      .then(() => store.nc.drain())
      .then(() => database.close())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[chain-indexer] failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
