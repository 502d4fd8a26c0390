import { tracing } from './tracing';
import { loadConfigOrExit, searchEnv } from '@shop/config';
import { MetricsEndpoint } from '@shop/metrics';
import { createLogger } from '@shop/logging';
import { runService } from '@shop/run-service';
import { startSearchService } from './bootstrap';

runService('search', async () => {
  const config = loadConfigOrExit(searchEnv, 'search');
  const logger = createLogger('search', config.LOG_LEVEL);
  const { app, url } = await startSearchService(config, logger);
  logger.info({ url, docs: `${url}/api-docs`, metrics: app.get(MetricsEndpoint).url }, 'search listening');
  return { logger, stop: () => app.close().then(() => tracing?.shutdown()) };
});
