import { Inject } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { checkoutOrderCreation, DomainError } from '@shop/domain';
import {
  OrderFilters,
  orderPage,
  ordersCache,
  ReadModelDatabase,
  StoredOrderPage,
  userOrder,
} from '@shop/read-models';
import type { Redis } from '@shop/redis';
import { READ_DB, REDIS } from '../infrastructure/tokens';
import { isLiveMergeable, LiveOrders, mergeLive } from './live-orders';
import { OrderResponse } from './order.schema';

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

/** Pages are cached per user until the orders projection changes one of that user's orders. */
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
    const cached = await this.cache.read<StoredOrderPage>(userId, variant);
    let stored = cached.value;
    if (!stored) {
      stored = await orderPage(this.db, userId, page, limit, filters);
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
    const order = await userOrder(this.db, userId, orderId);
    if (!order) throw orderNotFound();
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
