import { ColumnType } from 'kysely';
import { BookkeepingDatabase } from '@shop/db';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A UTC calendar day, written as 'YYYY-MM-DD'; read it with to_char so no time zone shifts it. */
type Day = ColumnType<Date, string, string>;

/** One row per user: when (event time) they first reached each stage of the onboarding funnel. */
export interface FunnelUsersTable {
  user_id: string;
  registered_at: Timestamp | null;
  display_name_at: Timestamp | null;
  address_at: Timestamp | null;
  sizes_at: Timestamp | null;
  first_item_at: Timestamp | null;
  first_order_at: Timestamp | null;
  first_delivery_at: Timestamp | null;
}

/** Whose checkout order it is: a delivery event names only the order. */
export interface FunnelOrdersTable {
  order_id: string;
  user_id: string;
}

/** Checkout orders with the price of their item snapshot, and the day payment was first confirmed. */
export interface RevenueOrdersTable {
  order_id: string;
  retailer: string;
  price_cents: number;
  confirmed_on: Day | null;
}

export interface RevenueDailyTable {
  day: Day;
  retailer: string;
  orders: number;
  revenue_cents: number;
}

export interface DepositsDailyTable {
  day: Day;
  deposits: number;
  /** numeric: summed exactly in SQL, read as a decimal string. */
  usdmx_amount: ColumnType<string, string, string>;
}

export interface ProductAddsTable {
  product_id: string;
  /** As first seen in the stream. */
  product_name: string;
  retailer: string;
  adds: number;
}

export interface SessionsDailyTable {
  day: Day;
  sessions: number;
}

/** An outside agent (MCP client) and what it did on shoppers' behalf. */
export interface AgentActivityTable {
  client_id: string;
  client_name: string;
  cart_adds: number;
  orders: number;
}

/** ANALYTICS_SCHEMA: projection bookkeeping and the analytics projections' tables. */
export interface AnalyticsDatabase extends BookkeepingDatabase {
  funnel_users: FunnelUsersTable;
  funnel_orders: FunnelOrdersTable;
  revenue_orders: RevenueOrdersTable;
  revenue_daily: RevenueDailyTable;
  deposits_daily: DepositsDailyTable;
  product_adds: ProductAddsTable;
  sessions_daily: SessionsDailyTable;
  agent_activity: AgentActivityTable;
}
