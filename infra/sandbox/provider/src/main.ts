import { loadConfigOrExit, providerSandboxEnv } from '@shop/config';
import { runService } from '@shop/run-service';
import { startProviderSandbox } from './sandbox-server';

runService('sandbox-provider', async () => {
  const config = loadConfigOrExit(providerSandboxEnv, 'sandbox-provider');
  const webhook =
    config.PROVIDER_WEBHOOK_URL && config.PROVIDER_WEBHOOK_SECRET
      ? { url: config.PROVIDER_WEBHOOK_URL, secret: config.PROVIDER_WEBHOOK_SECRET }
      : undefined;
  const sandbox = await startProviderSandbox({
    host: config.HOST,
    port: config.PORT,
    apiKey: config.PROVIDER_API_KEY,
    jwt: { issuer: config.PROVIDER_JWT_ISSUER, audience: config.PROVIDER_JWT_AUDIENCE },
    webhook,
    webhookRetryDelaysMs: config.PROVIDER_WEBHOOK_RETRY_DELAYS_MS,
    stageDelayMs: config.PROVIDER_SANDBOX_STAGE_DELAY_MS,
    logLevel: config.LOG_LEVEL,
  });
  process.stdout.write(`provider sandbox listening on ${sandbox.url}\n`);
  process.stdout.write(`  JWKS ${sandbox.jwksUrl}\n`);
  process.stdout.write(
    `  webhooks ${webhook ? `to ${webhook.url}` : 'not sent (PROVIDER_WEBHOOK_URL unset)'}\n`,
  );
  return { stop: () => sandbox.close() };
});
