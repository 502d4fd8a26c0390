import { analyticsEnv, loadConfigOrExit } from '@shop/config';
import { createLogger } from '@shop/observability';
import { startAnalytics } from './analytics-service';

async function main(): Promise<void> {
  const config = loadConfigOrExit(analyticsEnv, 'analytics');
  const logger = createLogger('analytics', config.LOG_LEVEL);
  const analytics = await startAnalytics(config, logger);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining analytics');
    analytics.stop().then(
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
    `[analytics] failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
