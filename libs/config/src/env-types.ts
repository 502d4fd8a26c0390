import { z } from 'zod';

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

export const booleanFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

export const url = z.url();

/** Deployment files often pass a variable that is unset upstream as "": that means "not configured". */
export const unsetWhenEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    schema.optional(),
  );

/** Subject tokens and stream names must not contain NATS wildcards, separators or whitespace. */
export const natsToken = z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, "_" or "-" only');

export const hex32Bytes = z
  .string()
  .regex(/^(0x)?[0-9a-fA-F]{64}$/, 'must be 32 bytes of hex (64 hex characters)');

export const sqlIdentifier = z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'lower-case SQL identifier');
