import { z } from 'zod';
import { OFFLINE_MODEL_ID } from '@shop/assistant';
import { loadConfigOrExit, port, sharedEnv } from '@shop/config';
import { runService } from '@shop/run-service';
import { DEFAULT_MODEL_SANDBOX_KEY, startModelSandbox } from './server';

const modelSandboxEnv = sharedEnv.pick({ NODE_ENV: true, LOG_LEVEL: true }).extend({
  HOST: z.string().default('127.0.0.1'),
  PORT: port(4040),
  MODEL_SANDBOX_API_KEY: z.string().min(1).default(DEFAULT_MODEL_SANDBOX_KEY),
  /** Comma-separated model ids the stand-in answers as. */
  MODEL_SANDBOX_MODELS: z
    .string()
    .default(OFFLINE_MODEL_ID)
    .transform((value) =>
      value
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean),
    ),
});

runService('sandbox-model', async () => {
  const config = loadConfigOrExit(modelSandboxEnv, 'sandbox-model');
  const sandbox = await startModelSandbox({
    host: config.HOST,
    port: config.PORT,
    apiKey: config.MODEL_SANDBOX_API_KEY,
    models: config.MODEL_SANDBOX_MODELS,
    logLevel: config.LOG_LEVEL,
  });
  process.stdout.write(`model sandbox listening on ${sandbox.url}\n`);
  process.stdout.write(
    `  set OPENAI_BASE_URL=${sandbox.baseURL}, OPENAI_API_KEY to MODEL_SANDBOX_API_KEY's value and CHAT_MODEL=${sandbox.models[0]}\n`,
  );
  return { stop: () => sandbox.close() };
});
