import { Kysely, sql } from 'kysely';
import { funnelStages } from '../projections/funnel.projection';
import { AnalyticsDatabase } from '../schema/analytics-database';

export interface FunnelStep {
  stage: string;
  users: number;
}

export interface AnalyticsReport {
  funnel: FunnelStep[];
  revenueByDay: { day: string; orders: number; revenueCents: number }[];
  revenueByRetailer: { retailer: string; orders: number; revenueCents: number }[];
  depositsByDay: { day: string; deposits: number; usdmxAmount: string }[];
  topProducts: { productId: string; productName: string; retailer: string; adds: number }[];
  sessionsByDay: { day: string; sessions: number }[];
  /** Outside agents (MCP clients): what each did on shoppers' behalf. */
  agents: { clientId: string; clientName: string; cartAdds: number; orders: number }[];
}

const day = sql<string>`to_char(day, 'YYYY-MM-DD')`;

/** Everything the CLI and the operator endpoint show, read from the analytics tables only. */
export async function readAnalyticsReport(
  db: Kysely<AnalyticsDatabase>,
  options: { topProducts?: number } = {},
): Promise<AnalyticsReport> {
  const [funnelRow, revenueByDay, revenueByRetailer, depositsByDay, topProducts, sessionsByDay, agents] =
    await Promise.all([
      db
        .selectFrom('funnel_users')
        .select(({ fn }) => funnelStages.map(({ stage }) => fn.count<number>(stage).as(stage)))
        .executeTakeFirstOrThrow(),
      db
        .selectFrom('revenue_daily')
        .select(({ fn }) => [
          day.as('day'),
          fn.sum<number>('orders').as('orders'),
          fn.sum<number>('revenue_cents').as('revenue_cents'),
        ])
        .groupBy('day')
        .orderBy('day')
        .execute(),
      db
        .selectFrom('revenue_daily')
        .select(({ fn }) => [
          'retailer',
          fn.sum<number>('orders').as('orders'),
          fn.sum<number>('revenue_cents').as('revenue_cents'),
        ])
        .groupBy('retailer')
        .orderBy('revenue_cents', 'desc')
        .orderBy('retailer')
        .execute(),
      db
        .selectFrom('deposits_daily')
        .select([day.as('day'), 'deposits', 'usdmx_amount'])
        .orderBy('day')
        .execute(),
      db
        .selectFrom('product_adds')
        .selectAll()
        .orderBy('adds', 'desc')
        .orderBy('product_id')
        .limit(options.topProducts ?? 10)
        .execute(),
      db
        .selectFrom('sessions_daily')
        .select([day.as('day'), 'sessions'])
        .orderBy('day')
        .execute(),
      db
        .selectFrom('agent_activity')
        .selectAll()
        .orderBy('orders', 'desc')
        .orderBy('cart_adds', 'desc')
        .orderBy('client_name')
        .orderBy('client_id')
        .execute(),
    ]);
  return {
    funnel: funnelStages.map(({ stage, label }) => ({ stage: label, users: Number(funnelRow[stage]) })),
    revenueByDay: revenueByDay.map((r) => ({
      day: r.day,
      orders: Number(r.orders),
      revenueCents: Number(r.revenue_cents),
    })),
    revenueByRetailer: revenueByRetailer.map((r) => ({
      retailer: r.retailer,
      orders: Number(r.orders),
      revenueCents: Number(r.revenue_cents),
    })),
    depositsByDay: depositsByDay.map((r) => ({
      day: r.day,
      deposits: r.deposits,
      usdmxAmount: String(r.usdmx_amount),
    })),
    topProducts: topProducts.map((r) => ({
      productId: r.product_id,
      productName: r.product_name,
      retailer: r.retailer,
      adds: r.adds,
    })),
    sessionsByDay: sessionsByDay.map((r) => ({ day: r.day, sessions: r.sessions })),
    agents: agents.map((r) => ({
      clientId: r.client_id,
      clientName: r.client_name,
      cartAdds: r.cart_adds,
      orders: r.orders,
    })),
  };
}
