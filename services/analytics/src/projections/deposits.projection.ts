import { DepositEvent, RecordedEvent } from '@shop/contracts';
import { Projection } from '@shop/projections';
import { AnalyticsDatabase } from '../schema/analytics-database';
import { addToTotals, TotalsSpec } from './add-to-totals';
import { utcDay } from './utc-day';

const depositsDaily: TotalsSpec = {
  table: 'deposits_daily',
  keys: { day: 'date' },
  sums: { deposits: 'integer', usdmx_amount: 'numeric' },
};

/** Deposits credited per day and their USDMX total (the decider credits a digest at most once). */
export const depositsProjection: Projection<AnalyticsDatabase> = {
  name: 'analytics_deposits',
  aggregates: ['deposit'],
  tables: ['deposits_daily'],
  async apply(db, events) {
    const credited = events
      .filter((e) => e.type === 'DepositCredited')
      .map((e) => {
        const event = e as RecordedEvent<Extract<DepositEvent, { type: 'DepositCredited' }>>;
        return { day: utcDay(event), deposits: 1, usdmx_amount: event.data.usdmxAmount };
      });
    if (credited.length > 0) await addToTotals(db, depositsDaily, credited);
  },
};
