import { Migration } from 'kysely';
import { bookkeepingMigrations } from '@shop/db';
import * as analyticsTables from './migrations/0002-analytics-tables';
import * as agentActivity from './migrations/0003-agent-activity';

/** ANALYTICS_SCHEMA, live or rebuilt: the projection bookkeeping, then the analytics tables. */
export const analyticsMigrations: Record<string, Migration> = {
  ...bookkeepingMigrations,
  '0002-analytics-tables': analyticsTables,
  '0003-agent-activity': agentActivity,
};
