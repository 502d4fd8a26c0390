import { z } from 'zod';
import { booleanFlag, port } from './env-types';
import { productionRules } from './production-rules';
import { sharedEnv } from './shared-config';

export const projectorEnv = sharedEnv
  .extend({
    /** /metrics, /ready and /health of the projector, which has no other HTTP port. */
    METRICS_PORT: port(9464),
    PROJECTOR_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
    /**
     * Stream messages per catch-up round while projections are behind: read once for all of the
     * process's projections, each one's share written in bulk; 0: never.
     */
    PROJECTOR_CATCH_UP_BATCH_SIZE: z.coerce.number().int().min(0).max(50_000).default(10_000),
    /** How long a lone message waits for others to share its batch (milliseconds); 0: never. */
    PROJECTOR_BATCH_WAIT_MS: z.coerce.number().int().min(0).max(50).default(2),
    PROJECTOR_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(3),
    /** Each batch's commit waits for the WAL flush (not needed to rebuild after a crash). */
    PROJECTOR_DURABLE_COMMITS: booleanFlag(false),
    PROJECTIONS: z
      .string()
      .optional()
      .transform((v) => (v ? v.split(',').map((s) => s.trim()) : undefined)),
  })
  .check(productionRules());

export type ProjectorConfig = z.output<typeof projectorEnv>;
