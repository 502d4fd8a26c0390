import { loadConfigOrExit, projectorEnv } from '@shop/config';
import { startOpsServer } from '@shop/metrics';
import { createLogger } from '@shop/observability';
import { startProjector } from './projector';

async function main(): Promise<void> {
  const config = loadConfigOrExit(projectorEnv, 'projector');
  const logger = createLogger('projector', config.LOG_LEVEL);
  const projector = await startProjector(config, logger);
  const ops = await startOpsServer({
    metrics: projector.metrics,
    checks: projector.checks,
    host: '0.0.0.0',
    port: config.METRICS_PORT,
  });
  logger.info({ url: ops.url }, 'projector metrics listening');
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining projector');
    Promise.all([ops.close(), projector.stop()]).then(
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
    `[projector] failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
