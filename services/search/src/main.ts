import { loadConfigOrExit, searchEnv } from '@shop/config';
import { MetricsEndpoint } from '@shop/metrics';
import { createLogger } from '@shop/observability';
import { startSearchService } from './bootstrap';

/** Past this a stuck shutdown is abandoned rather than left hanging. */
const shutdownDeadlineMs = 30_000;

async function main(): Promise<void> {
  const config = loadConfigOrExit(searchEnv, 'search');
  const logger = createLogger('search', config.LOG_LEVEL);
  const { app, url } = await startSearchService(config, logger);
  logger.info({ url, docs: `${url}/api-docs`, metrics: app.get(MetricsEndpoint).url }, 'search listening');

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'draining search service');
    setTimeout(() => process.exit(1), shutdownDeadlineMs).unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[search] failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
