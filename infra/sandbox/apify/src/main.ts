import { loadConfigOrExit, port } from '@shop/config';
import { runService } from '@shop/run-service';
import { z } from 'zod';
import { startApifySandbox } from './server';

const apifySandboxEnv = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: port(4020),
  APIFY_SANDBOX_TOKEN: z.string().min(1).default('apify_sandbox_local'),
});

runService('sandbox-apify', async () => {
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
  return { stop: () => sandbox.close() };
});
