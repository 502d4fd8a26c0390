import { z } from 'zod';
import { port, url } from './env-types';
import { sharedEnv } from './shared-config';

/** Svix secrets are base64 key bytes, shown with a `whsec_` prefix that the signer strips. */
const webhookSecret = z.string().regex(/^(whsec_)?[A-Za-z0-9+/]+={0,2}$/, 'must be whsec_<base64>');

const millisecondList = z
  .string()
  .regex(/^\d+(,\d+)*$/, 'comma-separated milliseconds, e.g. 5000,300000')
  .transform((v) => v.split(',').map(Number));

/**
 * The payment provider's local stand-in. It shares PROVIDER_* names with the gateway so one
 * `.env` can point both at the same API key, JWT issuer/audience and webhook secret.
 */
export const providerSandboxEnv = sharedEnv
  .pick({ NODE_ENV: true, LOG_LEVEL: true })
  .extend({
    HOST: z.string().default('127.0.0.1'),
    PORT: port(4010),
    PROVIDER_API_KEY: z.string().min(1).default('sk_sandbox_local'),
    PROVIDER_JWT_ISSUER: z.string().min(1).default('provider-sandbox'),
    PROVIDER_JWT_AUDIENCE: z.string().min(1).default('provider-sandbox'),
    PROVIDER_WEBHOOK_URL: url.optional(),
    PROVIDER_WEBHOOK_SECRET: webhookSecret.optional(),
    /** The first steps of Svix's real schedule; the attempt count is this list's length plus one. */
    PROVIDER_WEBHOOK_RETRY_DELAYS_MS: millisecondList.default([5_000, 300_000, 1_800_000]),
    /** After a shopper's approval, the time to payment, then to shipping, then to delivery; 0 is instant. */
    PROVIDER_SANDBOX_STAGE_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(2_000),
  })
  .superRefine((env, ctx) => {
    if (env.PROVIDER_WEBHOOK_URL && !env.PROVIDER_WEBHOOK_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['PROVIDER_WEBHOOK_SECRET'],
        message: 'required when PROVIDER_WEBHOOK_URL is set',
      });
    }
  });

export type ProviderSandboxConfig = z.output<typeof providerSandboxEnv>;
