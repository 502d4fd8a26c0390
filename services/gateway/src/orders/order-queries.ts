import { Inject } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { sql, type Kysely } from 'kysely';
import type { OrderStatus } from '@shop/contracts';
import { checkoutOrderCreation, DomainError } from '@shop/domain';
import { ordersCache, ReadModelDatabase } from '@shop/read-models';
import type { Redis } from '@shop/redis';
import { READ_DB, REDIS } from '../infrastructure/tokens';
import { isLiveMergeable, LiveOrders, mergeLive } from './live-orders';
import { OrderResponse, toOrder } from './order.schema';

export interface OrderFilters {
  type?: 'checkout' | 'deposit';
  status?: OrderStatus;
  phase?: string;
}

export interface OrderPage {
  orders: OrderResponse[];
  total: number;
  page: number;
  limit: number;
}

export class ListOrdersQuery extends Query<OrderPage> {
  constructor(
    readonly userId: string,
    readonly page: number,
    readonly limit: number,
    readonly filters: OrderFilters,
  ) {
    super();
  }
}

export class GetOrderQuery extends Query<OrderResponse> {
  constructor(
    readonly userId: string,
    readonly orderId: string,
  ) {
    super();
  }
}

export const orderNotFound = () => new DomainError('not_found', 'OrderNotFoundError', 'No such order');

/** A page as the read model holds it, before the provider's live view is merged in. */
interface StoredPage {
  orders: OrderResponse[];
  total: number;
}

/**
 * Filters apply in SQL before paging, so `total` counts exactly what the pages hold. Pages are
 * cached per user until the orders projection changes one of that user's orders.
 */
@QueryHandler(ListOrdersQuery)
export class ListOrdersHandler implements IQueryHandler<ListOrdersQuery> {
  private readonly cache;

  constructor(
    @Inject(READ_DB) private readonly db: Kysely<ReadModelDatabase>,
    @Inject(REDIS) redis: Redis,
    private readonly live: LiveOrders,
  ) {
    this.cache = ordersCache(redis);
  }

  async execute({ userId, page, limit, filters }: ListOrdersQuery): Promise<OrderPage> {
    const variant = JSON.stringify([page, limit, filters.type, filters.status, filters.phase]);
    const cached = await this.cache.read<StoredPage>(userId, variant);
    let stored = cached.value;
    if (!stored) {
      stored = await this.load(userId, page, limit, filters);
      await this.cache.write(userId, stored, cached.generation, variant);
    }
    const orders = await Promise.all(
      stored.orders.map(async (order) =>
        isLiveMergeable(order)
          ? mergeLive(order, await this.live.cachedOrNull(order.providerOrderId))
          : order,
      ),
    );
    return { orders, total: stored.total, page, limit };
  }

  private async load(
    userId: string,
    page: number,
    limit: number,
    filters: OrderFilters,
  ): Promise<StoredPage> {
    let query = this.db.selectFrom('orders').where('user_id', '=', userId);
    if (filters.type) query = query.where('type', '=', filters.type);
    if (filters.status) query = query.where('status', '=', filters.status);
    if (filters.phase) query = query.where('phase', '=', filters.phase);
    // The window count is taken before LIMIT, so one round trip gives the page and the total.
    const rows = await query
      .selectAll()
      .select(sql<string>`count(*) over ()`.as('total'))
      .orderBy('created_at', 'desc')
      .orderBy('order_id')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute();
    if (rows.length > 0) return { orders: rows.map(toOrder), total: Number(rows[0]!.total) };
    if (page === 1) return { orders: [], total: 0 };
    // Past the last page there is no row to carry the count.
    const count = await query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
    return { orders: [], total: Number(count.total) };
  }
}

/**
 * Another user's order is indistinguishable from a missing one. A checkout order is merged
 * with the provider's live view; if the provider cannot be reached, that is the spec's 502.
 */
@QueryHandler(GetOrderQuery)
export class GetOrderHandler implements IQueryHandler<GetOrderQuery> {
  constructor(
    @Inject(READ_DB) private readonly db: Kysely<ReadModelDatabase>,
    private readonly live: LiveOrders,
  ) {}

  async execute({ userId, orderId }: GetOrderQuery): Promise<OrderResponse> {
    const row = await this.db
      .selectFrom('orders')
      .selectAll()
      .where('order_id', '=', orderId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!row) throw orderNotFound();
    const order = toOrder(row);
    if (order.type !== 'checkout') return order;
    try {
      return mergeLive(order, await this.live.fetch(order.providerOrderId));
    } catch (error) {
      throw checkoutOrderCreation(
        `the order's live status is unavailable (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }
}
