import { loadConfigOrExit, providerSandboxEnv } from '@shop/config';
import { startProviderSandbox } from './sandbox-server';

async function main(): Promise<void> {
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
    logLevel: config.LOG_LEVEL,
  });
  process.stdout.write(`provider sandbox listening on ${sandbox.url}\n`);
  process.stdout.write(`  JWKS ${sandbox.jwksUrl}\n`);
  process.stdout.write(
    `  webhooks ${webhook ? `to ${webhook.url}` : 'not sent (PROVIDER_WEBHOOK_URL unset)'}\n`,
  );

  const stop = (): void => {
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`[sandbox-provider] failed to start: ${String(error)}\n`);
  process.exit(1);
});
