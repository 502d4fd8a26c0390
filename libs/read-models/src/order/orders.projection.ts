import { Selectable } from 'kysely';
import { AgentClientEvent, DepositEvent, OrderEvent, OrderStatus, RecordedEvent } from '@shop/contracts';
import { depositOrderId } from '@shop/domain';
import { applyRowFold, BulkTable, foldRows, RowFoldSpec } from '@shop/projections';
import { UserChangeListener } from '../cache-invalidator';
import { ReadModelProjection } from '../read-model-database';
import { AgentClientsTable, OrdersTable, OrderTimelineEntry } from './orders-table';

type OrderRow = Selectable<OrdersTable>;
type AgentClientRow = Selectable<AgentClientsTable>;

const reached = (
  row: OrderRow | undefined,
  status: OrderStatus,
  at: Date,
  reason?: string,
): OrderTimelineEntry[] => [
  ...(row?.timeline ?? []),
  { status, at: at.toISOString(), ...(reason !== undefined && { reason }) },
];

const statusAfter: Record<
  'OrderPaymentConfirmed' | 'OrderDeliveryStarted' | 'OrderDelivered' | 'OrderCancelled',
  OrderStatus
> = {
  OrderPaymentConfirmed: 'payment_confirmed',
  OrderDeliveryStarted: 'in_progress',
  OrderDelivered: 'delivered',
  OrderCancelled: 'cancelled',
};

/**
 * A deposit is listed as an order of type `deposit`: in progress while it is being credited,
 * delivered once the EVM wallet is funded, cancelled when funding failed (a retry reopens it).
 */
function foldDeposit(row: OrderRow | undefined, event: RecordedEvent<DepositEvent>): OrderRow | undefined {
  const at = new Date(event.occurredAt);
  if (event.type === 'DepositClaimed') {
    const d = event.data;
    return {
      order_id: depositOrderId(event.aggregateId),
      user_id: d.userId,
      provider_order_id: event.aggregateId,
      type: 'deposit',
      phase: 'crediting',
      status: 'in_progress',
      cart_item_id: null,
      item: null,
      payment: { status: 'completed', currency: 'usdc' },
      quote: { totalPrice: { amount: d.usdcAmount, currency: 'usdc' } },
      wallet_address: d.evmAddress,
      tx_hash: event.aggregateId,
      timeline: reached(row, 'in_progress', at),
      agent_client_id: null,
      created_at: row?.created_at ?? at,
      updated_at: at,
      version: event.sequence,
    };
  }
  if (!row) throw new Error(`${event.type} for unclaimed deposit ${event.aggregateId}`);
  if (event.type === 'DepositCredited') {
    return {
      ...row,
      phase: 'completed',
      status: 'delivered',
      timeline: reached(row, 'delivered', at),
      updated_at: at,
      version: event.sequence,
    };
  }
  return {
    ...row,
    phase: 'failed',
    status: 'cancelled',
    timeline: reached(row, 'cancelled', at, event.data.reason),
    updated_at: at,
    version: event.sequence,
  };
}

function foldOrder(row: OrderRow | undefined, recorded: RecordedEvent): OrderRow | undefined {
  if (recorded.aggregate === 'deposit') return foldDeposit(row, recorded as RecordedEvent<DepositEvent>);
  const event = recorded as RecordedEvent<OrderEvent>;
  const at = new Date(event.occurredAt);
  if (event.type === 'OrderCreated') {
    const d = event.data;
    return {
      order_id: event.aggregateId,
      user_id: d.userId,
      provider_order_id: d.providerOrderId,
      type: d.type,
      phase: d.phase,
      status: 'awaiting_approval',
      cart_item_id: d.cartItemId,
      item: d.item,
      payment: d.payment,
      quote: d.quote,
      wallet_address: d.walletAddress,
      tx_hash: row?.tx_hash ?? null,
      timeline: reached(undefined, 'awaiting_approval', at),
      agent_client_id: event.actor.agentClientId ?? null,
      created_at: at,
      updated_at: at,
      version: event.sequence,
    };
  }
  if (!row) throw new Error(`${event.type} for unknown order ${event.aggregateId}`);
  if (event.type === 'OrderCheckedOutOnChain')
    return { ...row, tx_hash: event.data.txDigest, version: event.sequence };
  if (event.type === 'OrderOnChainCheckoutFailed' || event.type === 'OrderOnChainCheckoutSubmitted')
    return row;
  // The decider only emits forward moves, so the read side applies them as they come.
  const status = statusAfter[event.type];
  return {
    ...row,
    status,
    timeline: reached(row, status, at, event.type === 'OrderCancelled' ? event.data.reason : undefined),
    phase: event.data.phase,
    payment: event.data.payment ?? row.payment,
    quote: event.data.quote ?? row.quote,
    updated_at: at,
    version: event.sequence,
  };
}

const spec: RowFoldSpec<OrderRow> = {
  table: 'orders',
  key: 'order_id',
  keyOf: (event) =>
    event.aggregate === 'order'
      ? event.aggregateId
      : event.aggregate === 'deposit'
        ? depositOrderId(event.aggregateId)
        : null,
  fold: foldOrder,
};

const agentClients: RowFoldSpec<AgentClientRow> = {
  table: 'agent_clients',
  key: 'client_id',
  keyOf: (event) => (event.aggregate === 'agent-client' ? event.aggregateId : null),
  fold: (_row, recorded) => {
    const event = recorded as RecordedEvent<AgentClientEvent>;
    return { client_id: event.aggregateId, client_name: event.data.clientName, version: event.sequence };
  },
};

/**
 * Most order events do not name the user, so the users whose lists changed are taken from the
 * rows folded since the last commit. A failed or retried batch can only add users to the set,
 * and invalidating one more list than needed is harmless.
 */
export function ordersProjection(listener?: UserChangeListener): ReadModelProjection {
  const usersInBatch = new Set<string>();
  const tracking: RowFoldSpec<OrderRow> = {
    ...spec,
    fold: (row, event) => {
      const after = foldOrder(row, event);
      if (after) usersInBatch.add(after.user_id);
      return after;
    },
  };
  return {
    name: 'orders',
    aggregates: ['order', 'deposit', 'agent-client'],
    tables: ['orders', 'agent_clients'],
    // An order row is its order's fold, a deposit's row its deposit's (keyed apart by
    // depositOrderId), an agent's its registration: no row combines two aggregates.
    partitioned: true,
    async apply(db, events, mode) {
      await applyRowFold(db, listener ? tracking : spec, events, mode);
      await applyRowFold(db, agentClients, events, mode);
    },
    // A rebuild's schema has no readers whose lists could be stale.
    bulk() {
      const orders = new BulkTable<OrderRow>('orders');
      const clients = new BulkTable<AgentClientRow>('agent_clients');
      return {
        add(events) {
          foldRows(spec, orders, events);
          foldRows(agentClients, clients, events);
        },
        tables: () => [orders, clients],
      };
    },
    async afterCommit() {
      if (usersInBatch.size === 0 || !listener) return;
      const users = new Set(usersInBatch);
      usersInBatch.clear();
      await listener.usersChanged(users);
    },
  };
}
