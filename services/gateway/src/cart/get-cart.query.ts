import { Inject } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { activeCartItems, cartCache, ReadModelDatabase } from '@shop/read-models';
import type { Redis } from '@shop/redis';
import { READ_DB, REDIS } from '../infrastructure/tokens';
import { CartItemResponse } from './cart-item.schema';

export class GetCartQuery extends Query<CartItemResponse[]> {
  constructor(readonly userId: string) {
    super();
  }
}

/** Active items from the read model, through the cart cache the projector invalidates. */
@QueryHandler(GetCartQuery)
export class GetCartHandler implements IQueryHandler<GetCartQuery> {
  private readonly cache;

  constructor(
    @Inject(READ_DB) private readonly db: Kysely<ReadModelDatabase>,
    @Inject(REDIS) redis: Redis,
  ) {
    this.cache = cartCache(redis);
  }

  async execute({ userId }: GetCartQuery): Promise<CartItemResponse[]> {
    const cached = await this.cache.read<CartItemResponse[]>(userId);
    if (cached.value) return cached.value;
    const items = await activeCartItems(this.db, userId);
    await this.cache.write(userId, items, cached.generation);
    return items;
  }
}
