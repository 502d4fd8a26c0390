import { Projection } from '@shop/projections';
import { AnalyticsDatabase } from '../schema/analytics-database';
import { addToTotals, TotalsSpec } from './add-to-totals';
import { utcDay } from './utc-day';

const sessionsDaily: TotalsSpec = {
  table: 'sessions_daily',
  keys: { day: 'date' },
  sums: { sessions: 'integer' },
};

/** Chat sessions opened per day. */
export const sessionsProjection: Projection<AnalyticsDatabase> = {
  name: 'analytics_sessions',
  aggregates: ['session'],
  tables: ['sessions_daily'],
  async apply(db, events) {
    const opened = events
      .filter((e) => e.type === 'SessionCreated')
      .map((e) => ({ day: utcDay(e), sessions: 1 }));
    if (opened.length > 0) await addToTotals(db, sessionsDaily, opened);
  },
};
