import { tracing } from './tracing';
import { loadConfigOrExit, projectorEnv } from '@shop/config';
import { startOpsServer } from '@shop/metrics';
import { createLogger } from '@shop/logging';
import { runService } from '@shop/run-service';
import { startProjector } from './projector';

runService('projector', async () => {
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
  return { logger, stop: () => Promise.all([ops.close(), projector.stop()]).then(() => tracing?.shutdown()) };
});
