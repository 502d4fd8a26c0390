import { Selectable } from 'kysely';
import type { OrderStatus } from '@shop/contracts';
import { OrderItemRow, OrdersTable, OrderTimelineEntry } from './orders-table';

/** An order as the gateway answers it (the `OrderSummary` schema), before the provider's live view is merged in. */
export interface OrderView {
  orderId: string;
  providerOrderId: string;
  type: 'checkout' | 'deposit';
  phase: string;
  status: OrderStatus;
  item: OrderItemRow | null;
  payment: { status: string; currency: string } | null;
  quote: { totalPrice: { amount: string; currency: string } } | null;
  timeline: OrderTimelineEntry[];
  /** The on-chain digest: a deposit's transaction, or the contract checkout of a checkout order. */
  tx_hash: string | null;
  createdAt: string;
  /** The outside agent that placed it, null when the shopper did. */
  agent: { clientId: string; clientName: string | null } | null;
}

/** An orders row with the name of its agent, as the order queries join it. */
export type OrderRowWithAgent = Selectable<OrdersTable> & { agent_client_name: string | null };

export function viewOfOrderRow(row: OrderRowWithAgent): OrderView {
  return {
    orderId: row.order_id,
    providerOrderId: row.provider_order_id,
    type: row.type,
    phase: row.phase,
    status: row.status,
    item: row.item,
    payment: row.payment,
    quote: row.quote,
    timeline: row.timeline,
    tx_hash: row.tx_hash,
    createdAt: new Date(row.created_at).toISOString(),
    agent: row.agent_client_id ? { clientId: row.agent_client_id, clientName: row.agent_client_name } : null,
  };
}
