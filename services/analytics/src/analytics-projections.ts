import { Projection } from '@shop/projections';
import { agentsProjection } from './projections/agents.projection';
import { depositsProjection } from './projections/deposits.projection';
import { funnelProjection } from './projections/funnel.projection';
import { productsProjection } from './projections/products.projection';
import { revenueProjection } from './projections/revenue.projection';
import { sessionsProjection } from './projections/sessions.projection';
import { AnalyticsDatabase } from './schema/analytics-database';

/** Every projection of ANALYTICS_SCHEMA; with analyticsMigrations, what a rebuild needs. */
export const analyticsProjections: readonly Projection<AnalyticsDatabase>[] = [
  funnelProjection,
  revenueProjection,
  depositsProjection,
  productsProjection,
  sessionsProjection,
  agentsProjection,
];
