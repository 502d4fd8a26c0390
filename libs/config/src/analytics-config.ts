import { z } from 'zod';
import { port, sqlIdentifier } from './env-types';
import { productionRules } from './production-rules';
import { sharedEnv } from './shared-config';

export const analyticsEnv = sharedEnv
  .extend({
    /** The analytics service's own Postgres schema: its projections and their bookkeeping. */
    ANALYTICS_SCHEMA: sqlIdentifier.default('analytics'),
    /** /health, /ready, /metrics and, with a token, the operator report. */
    PORT: port(3002),
    HOST: z.string().default('0.0.0.0'),
    /** Bearer token of GET /api/analytics/report; absent turns the endpoint off (404). */
    ANALYTICS_OPERATOR_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
    PROJECTOR_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
    PROJECTOR_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(3),
  })
  .check(productionRules());

export type AnalyticsConfig = z.output<typeof analyticsEnv>;
