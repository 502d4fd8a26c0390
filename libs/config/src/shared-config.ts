import { z } from 'zod';
import { hex32Bytes, natsToken, sqlIdentifier } from './env-types';

/** Variables every process of the stack reads. */
export const sharedEnv = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/shop'),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  REDIS_KEY_PREFIX: z.string().default('shop:'),
  EVENT_STREAM: natsToken.default('SHOP'),
  EVENT_SUBJECT_PREFIX: natsToken.default('shop'),
  EVENT_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  READ_MODEL_SCHEMA: sqlIdentifier.default('read_model'),
  /** Master key wrapping the data keys of personal data (see dataEncryptionKey). */
  DATA_ENCRYPTION_KEY: hex32Bytes.optional(),
  SECRETS_SCHEMA: sqlIdentifier.default('secrets'),
});

export type SharedConfig = z.output<typeof sharedEnv>;
