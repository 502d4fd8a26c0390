import { z } from 'zod';

/** Only these two relax the rules; anything else, unset included, is production. */
export const isProduction = (env: { NODE_ENV?: unknown }): boolean =>
  env.NODE_ENV !== 'development' && env.NODE_ENV !== 'test';

/**
 * What a service refuses to start without in production: the master key of personal data, a
 * NATS credential (the bus is never open in production) and the service's own `extra` variables.
 * It runs even when another variable is already invalid, so one message names every problem.
 */
export const productionRules = (extra: readonly string[] = []) =>
  z.superRefine(
    (env: Record<string, unknown>, ctx) => {
      if (!isProduction(env)) return;
      for (const name of [...extra, 'DATA_ENCRYPTION_KEY']) {
        if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: 'required in production' });
      }
      if (!env.NATS_CREDS && !(env.NATS_USER && env.NATS_PASSWORD)) {
        ctx.addIssue({
          code: 'custom',
          path: ['NATS_USER'],
          message: 'required in production (with NATS_PASSWORD), or NATS_CREDS',
        });
      }
    },
    { when: () => true },
  );
