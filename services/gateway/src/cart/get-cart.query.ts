import { Inject } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { activeCartItems, cartCache, ReadModelDatabase } from '@shop/read-models';
import type { Redis } from '@shop/redis';
import { READ_DB, REDIS } from '../infrastructure/tokens';
import { CartItemResponse } from './cart-item.schema';

/**
 * The active items, and the same as JSON: a cart served from the cache is passed on as the cache
 * holds it (GET /api/cart sends it unparsed); the items are parsed only for a caller that asks.
 */
export class CartContents {
  private parsed: CartItemResponse[] | undefined;

  constructor(
    readonly json: string,
    items?: CartItemResponse[],
  ) {
    this.parsed = items;
  }

  get items(): CartItemResponse[] {
    return (this.parsed ??= JSON.parse(this.json) as CartItemResponse[]);
  }
}

export class GetCartQuery extends Query<CartContents> {
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

  async execute({ userId }: GetCartQuery): Promise<CartContents> {
    const cached = await this.cache.readJson(userId);
    if (cached.json !== undefined) return new CartContents(cached.json);
    const items = await activeCartItems(this.db, userId);
    const contents = new CartContents(JSON.stringify(items), items);
    await this.cache.writeJson(userId, contents.json, cached.generation);
    return contents;
  }
}
