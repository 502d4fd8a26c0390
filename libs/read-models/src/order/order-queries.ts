import { Kysely, sql } from 'kysely';
import type { OrderStatus } from '@shop/contracts';
import { ReadModelDatabase } from '../read-model-database';
import { OrderView, viewOfOrderRow } from './order-view';

export interface OrderFilters {
  type?: 'checkout' | 'deposit';
  status?: OrderStatus;
  phase?: string;
}

/** A page of a user's orders, newest first, and how many orders pass the filters in all. */
export interface StoredOrderPage {
  orders: OrderView[];
  total: number;
}

/** A user's orders, each with the name of the agent that placed it. */
const ordersOf = (db: Kysely<ReadModelDatabase>, userId: string) =>
  db
    .selectFrom('orders')
    .leftJoin('agent_clients', 'agent_clients.client_id', 'orders.agent_client_id')
    .where('orders.user_id', '=', userId);

/** Filters apply in SQL before paging, so `total` counts exactly what the pages hold. */
export async function orderPage(
  db: Kysely<ReadModelDatabase>,
  userId: string,
  page: number,
  limit: number,
  filters: OrderFilters,
): Promise<StoredOrderPage> {
  let query = ordersOf(db, userId);
  if (filters.type) query = query.where('orders.type', '=', filters.type);
  if (filters.status) query = query.where('orders.status', '=', filters.status);
  if (filters.phase) query = query.where('orders.phase', '=', filters.phase);
  // The window count is taken before LIMIT, so one round trip gives the page and the total.
  const rows = await query
    .selectAll('orders')
    .select('agent_clients.client_name as agent_client_name')
    .select(sql<string>`count(*) over ()`.as('total'))
    .orderBy('orders.created_at', 'desc')
    .orderBy('orders.order_id')
    .limit(limit)
    .offset((page - 1) * limit)
    .execute();
  if (rows.length > 0) return { orders: rows.map(viewOfOrderRow), total: Number(rows[0]!.total) };
  if (page === 1) return { orders: [], total: 0 };
  // Past the last page there is no row to carry the count.
  const count = await query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
  return { orders: [], total: Number(count.total) };
}

/** Another user's order is not found, exactly like a missing one. */
export async function userOrder(
  db: Kysely<ReadModelDatabase>,
  userId: string,
  orderId: string,
): Promise<OrderView | undefined> {
  const row = await ordersOf(db, userId)
    .selectAll('orders')
    .select('agent_clients.client_name as agent_client_name')
    .where('orders.order_id', '=', orderId)
    .executeTakeFirst();
  return row && viewOfOrderRow(row);
}
