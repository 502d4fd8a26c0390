import { z } from 'zod';

/**
 * Which proxies may set X-Forwarded-For, as Fastify's `trustProxy` takes it: `true`, `false`, or
 * comma-separated addresses/CIDRs. A rate limit per client address keys on it, so trusting every
 * proxy would let a client pick its own key: the default trusts none.
 */
export const trustProxy = z
  .string()
  .regex(/^(true|false|[0-9A-Fa-f.:/]+(,\s*[0-9A-Fa-f.:/]+)*)$/, 'true, false, or proxy addresses')
  .default('false')
  .transform((value): boolean | string => (value === 'true' || value === 'false' ? value === 'true' : value));

/** A cookie name as RFC 6265 allows it (an HTTP token). */
const cookieName = z
  .string()
  .regex(/^[!#$%&'*+\-.^`|~\w]+$/, "a cookie name (letters, digits, !#$%&'*+-.^_`|~)");

/** The spec's own cookies: a browser SDK cookie of the same name would be read as both. */
const specCookies = new Set(['provider-jwt', 'provider-refresh-token', 'user-email', 'consistency-token']);

/** The gateway's session variables beyond the spec's `provider-jwt` exchange. */
export const sessionFields = {
  /**
   * The provider's browser SDK keeps its session in two cookies on the frontend's origin, under
   * these names (the SDK's own), and the frontend forwards them with every API call.
   */
  PROVIDER_SDK_JWT_COOKIE: cookieName.default('crossmint-jwt'),
  PROVIDER_SDK_REFRESH_COOKIE: cookieName.default('crossmint-refresh-token'),
  /**
   * Refresh exchanges a minute that one client address may make the gateway send to the provider
   * while it has no valid session (an expired or absent access cookie beside a refresh cookie).
   */
  SESSION_REFRESH_RATE_LIMIT_RPM: z.coerce.number().int().min(1).default(20),
  TRUST_PROXY: trustProxy,
};

/** Each session cookie name means one thing. */
export const distinctSessionCookies = z.superRefine(
  (env: { PROVIDER_SDK_JWT_COOKIE: string; PROVIDER_SDK_REFRESH_COOKIE: string }, ctx) => {
    for (const name of ['PROVIDER_SDK_JWT_COOKIE', 'PROVIDER_SDK_REFRESH_COOKIE'] as const) {
      if (specCookies.has(env[name]))
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `${env[name]} is already a cookie of the API`,
        });
    }
    if (env.PROVIDER_SDK_JWT_COOKIE === env.PROVIDER_SDK_REFRESH_COOKIE)
      ctx.addIssue({
        code: 'custom',
        path: ['PROVIDER_SDK_REFRESH_COOKIE'],
        message: 'must differ from PROVIDER_SDK_JWT_COOKIE',
      });
  },
);
