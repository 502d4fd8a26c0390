import { z } from 'zod';
import { isPartitionCount, MAX_STREAM_PARTITIONS } from '@shop/contracts';
import { hex32Bytes, natsToken, sqlIdentifier, unsetWhenEmpty } from './env-types';

const partitionCountMessage = `must be a power of two from 1 to ${MAX_STREAM_PARTITIONS} (1, 2, 4, ... ${MAX_STREAM_PARTITIONS}): each partition is one filter subject`;

/** Variables every process of the stack reads. */
export const sharedEnv = z.object({
  /** Unset means production: development and test relax the rules only when asked for by name. */
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** This process's own NATS user (infra/nats/nats-server.conf grants each user only what it needs). */
  NATS_USER: unsetWhenEmpty(natsToken),
  NATS_PASSWORD: unsetWhenEmpty(z.string().min(1)),
  /** A NATS credentials file (user JWT and nkey seed), instead of a user and password. */
  NATS_CREDS: unsetWhenEmpty(z.string().min(1)),
  /** TLS to NATS: the CA that signed the server's certificate, and a client certificate and key. */
  NATS_TLS_CA: unsetWhenEmpty(z.string().min(1)),
  NATS_TLS_CERT: unsetWhenEmpty(z.string().min(1)),
  NATS_TLS_KEY: unsetWhenEmpty(z.string().min(1)),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/shop'),
  /**
   * The most connections of the process's Postgres pool; unset, the service's own size (gateway
   * 20, projector and search 10, analytics 5, chain indexer 2). Its locks hold connections of
   * their own besides (one per single-active reaction or projection; see "The benchmark" in
   * docs/operations.md).
   */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).optional(),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  REDIS_KEY_PREFIX: z.string().default('shop:'),
  EVENT_STREAM: natsToken.default('SHOP'),
  EVENT_SUBJECT_PREFIX: natsToken.default('shop'),
  EVENT_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /**
   * Partitions of each projection's and reaction's work, by aggregate id (see partitionOf): each
   * has one holder at a time, so up to this many processes share a projection or a reaction.
   * Every process of a stack must agree on it; changing it is a rebuild (docs/capacity.md). A
   * power of two, so that each partition is one filter subject (see partitionFilter).
   */
  STREAM_PARTITIONS: z.coerce
    .number({ error: partitionCountMessage })
    .refine(isPartitionCount, { message: partitionCountMessage })
    .default(1),
  READ_MODEL_SCHEMA: sqlIdentifier.default('read_model'),
  /** Master key wrapping the data keys of personal data (see dataEncryptionKey). */
  DATA_ENCRYPTION_KEY: hex32Bytes.optional(),
  SECRETS_SCHEMA: sqlIdentifier.default('secrets'),
});

export type SharedConfig = z.output<typeof sharedEnv>;
