import { Selectable } from 'kysely';
import { OrderEvent, RecordedEvent } from '@shop/contracts';
import { applyRowFold, Projection, RowFoldSpec } from '@shop/projections';
import { AnalyticsDatabase, RevenueOrdersTable } from '../schema/analytics-database';
import { addToTotals, TotalsSpec } from './add-to-totals';
import { utcDay } from './utc-day';

/** confirmed_on is read back as a Date and written as a 'YYYY-MM-DD' day; only null-ness matters here. */
type RevenueOrderRow = Omit<Selectable<RevenueOrdersTable>, 'confirmed_on'> & {
  confirmed_on: string | Date | null;
};

type Confirmation = { day: string; retailer: string; orders: number; revenue_cents: number };

const revenueDaily: TotalsSpec = {
  table: 'revenue_daily',
  keys: { day: 'date', retailer: 'text' },
  sums: { orders: 'integer', revenue_cents: 'bigint' },
};

/**
 * Checkout orders keep their item's snapshot price from OrderCreated; the first payment
 * confirmation books it as revenue on that event's day. The fold reports each booking into
 * `booked`, so the totals move once per order however often a confirmation is repeated.
 */
function ordersSpec(booked: Confirmation[]): RowFoldSpec<RevenueOrderRow> {
  return {
    table: 'revenue_orders',
    key: 'order_id',
    keyOf: (event) => (event.aggregate === 'order' ? event.aggregateId : null),
    fold(row, recorded) {
      const event = recorded as RecordedEvent<OrderEvent>;
      if (event.type === 'OrderCreated') {
        if (row || event.data.type !== 'checkout' || !event.data.item) return row;
        const { price, retailer } = event.data.item;
        return { order_id: event.aggregateId, retailer, price_cents: price, confirmed_on: null };
      }
      if (event.type !== 'OrderPaymentConfirmed' || !row || row.confirmed_on !== null) return row;
      const day = utcDay(event);
      booked.push({ day, retailer: row.retailer, orders: 1, revenue_cents: Number(row.price_cents) });
      return { ...row, confirmed_on: day };
    },
  };
}

/** Revenue per day and retailer from confirmed checkout orders, in USD cents. */
export const revenueProjection: Projection<AnalyticsDatabase> = {
  name: 'analytics_revenue',
  aggregates: ['order'],
  tables: ['revenue_orders', 'revenue_daily'],
  async apply(db, events) {
    const booked: Confirmation[] = [];
    await applyRowFold(db, ordersSpec(booked), events);
    if (booked.length > 0) await addToTotals(db, revenueDaily, booked);
  },
};
