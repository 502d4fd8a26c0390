import { Inject } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import type { OrderStatus } from '@shop/contracts';
import type { ReadModelDatabase } from '@shop/db';
import { checkoutOrderCreation, DomainError } from '@shop/domain';
import { READ_DB } from '../infrastructure/tokens';
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

/** Filters apply in SQL before paging, so `total` counts exactly what the pages hold. */
@QueryHandler(ListOrdersQuery)
export class ListOrdersHandler implements IQueryHandler<ListOrdersQuery> {
  constructor(
    @Inject(READ_DB) private readonly db: Kysely<ReadModelDatabase>,
    private readonly live: LiveOrders,
  ) {}

  async execute({ userId, page, limit, filters }: ListOrdersQuery): Promise<OrderPage> {
    let query = this.db.selectFrom('orders').where('user_id', '=', userId);
    if (filters.type) query = query.where('type', '=', filters.type);
    if (filters.status) query = query.where('status', '=', filters.status);
    if (filters.phase) query = query.where('phase', '=', filters.phase);
    const [rows, count] = await Promise.all([
      query
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('order_id')
        .limit(limit)
        .offset((page - 1) * limit)
        .execute(),
      query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    const orders = await Promise.all(
      rows
        .map(toOrder)
        .map(async (order) =>
          isLiveMergeable(order)
            ? mergeLive(order, await this.live.cachedOrNull(order.providerOrderId))
            : order,
        ),
    );
    return { orders, total: Number(count.total), page, limit };
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
