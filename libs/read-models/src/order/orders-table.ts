import { JSONColumnType, Migration } from 'kysely';
import type { OrderStatus } from '@shop/contracts';
import { Timestamp } from '../timestamp';
import * as orders from './migrations/0006-orders';
import * as timeline from './migrations/0008-order-timeline';
import * as agents from './migrations/0010-order-agents';

export interface OrderItemRow {
  productId: string;
  productName: string;
  price: number;
  image: string;
  size: string;
  color: string;
  productUrl: string;
  retailer: string;
}

/** One status an order reached, when, and for a cancellation why. */
export interface OrderTimelineEntry {
  status: OrderStatus;
  at: string;
  reason?: string;
}

export interface OrdersTable {
  order_id: string;
  user_id: string;
  provider_order_id: string;
  type: 'checkout' | 'deposit';
  phase: string;
  status: OrderStatus;
  cart_item_id: string | null;
  item: JSONColumnType<OrderItemRow | null>;
  payment: JSONColumnType<{ status: string; currency: string } | null>;
  quote: JSONColumnType<{ totalPrice: { amount: string; currency: string } } | null>;
  wallet_address: string | null;
  tx_hash: string | null;
  /** Every status the order reached, oldest first. */
  timeline: JSONColumnType<OrderTimelineEntry[]>;
  /** The outside agent that placed it for the shopper (its OrderCreated's actor); null: the shopper. */
  agent_client_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: number;
}

/**
 * Every registered outside agent's name, so an order names the agent that placed it even after
 * the shopper disconnected it (its grant's row is gone then).
 */
export interface AgentClientsTable {
  client_id: string;
  client_name: string;
  version: number;
}

/** Named as recorded in every existing schema's migration table. */
export const ordersMigrations: Record<string, Migration> = {
  '0006-orders': orders,
  '0008-order-timeline': timeline,
  '0010-order-agents': agents,
};
