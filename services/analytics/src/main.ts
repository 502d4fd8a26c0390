import { tracing } from './tracing';
import { analyticsEnv, loadConfigOrExit } from '@shop/config';
import { createLogger } from '@shop/logging';
import { runService } from '@shop/run-service';
import { startAnalytics } from './analytics-service';

runService('analytics', async () => {
  const config = loadConfigOrExit(analyticsEnv, 'analytics');
  const logger = createLogger('analytics', config.LOG_LEVEL);
  const analytics = await startAnalytics(config, logger);
  return { logger, stop: () => analytics.stop().then(() => tracing?.shutdown()) };
});
