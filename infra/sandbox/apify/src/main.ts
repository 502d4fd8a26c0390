import { loadConfigOrExit, port } from '@shop/config';
import { z } from 'zod';
import { startApifySandbox } from './server';

const apifySandboxEnv = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: port(4020),
  APIFY_SANDBOX_TOKEN: z.string().min(1).default('apify_sandbox_local'),
});

async function main(): Promise<void> {
  const config = loadConfigOrExit(apifySandboxEnv, 'sandbox-apify');
  const sandbox = await startApifySandbox({
    host: config.HOST,
    port: config.PORT,
    token: config.APIFY_SANDBOX_TOKEN,
  });
  process.stdout.write(`scraping platform sandbox listening on ${sandbox.url}\n`);
  process.stdout.write(
    `  set APIFY_API_BASE_URL=${sandbox.url} and APIFY_API_TOKEN to APIFY_SANDBOX_TOKEN's value\n`,
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
  process.stderr.write(`[sandbox-apify] failed to start: ${String(error)}\n`);
  process.exit(1);
});
