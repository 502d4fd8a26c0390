import { tracing } from './tracing';
import { gatewayEnv, loadConfigOrExit } from '@shop/config';
import { MetricsEndpoint } from '@shop/metrics';
import { createLogger } from '@shop/logging';
import { runService } from '@shop/run-service';
import { createGatewayApp, listenGateway } from './bootstrap';

runService('gateway', async () => {
  const config = loadConfigOrExit(gatewayEnv, 'gateway');
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const app = await createGatewayApp(config, logger);
  await listenGateway(app, config.PORT, config.HOST);
  logger.info(
    {
      url: `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.PORT}`,
      metrics: app.get(MetricsEndpoint).url,
    },
    'gateway listening',
  );
  return { logger, stop: () => app.close().then(() => tracing?.shutdown()) };
});
