import { gatewayEnv, loadConfigOrExit } from '@shop/config';
import { MetricsEndpoint } from '@shop/metrics';
import { createLogger } from '@shop/observability';
import { createGatewayApp, listenGateway } from './bootstrap';

async function main(): Promise<void> {
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
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[gateway] failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
