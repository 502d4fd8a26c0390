import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { Aggregates } from '@shop/commands';
import type { ProductToAdd } from '@shop/domain';
import { viewOfItemAdded } from '@shop/read-models';
import { CartItemResponse } from './cart-item.schema';
import { CartCommandIds, CartService } from './cart-service';
import { GetCartQuery } from './get-cart.query';

/**
 * The cart with CART_SERVICE=db: decided and stored as the user's cart aggregate, read from the
 * read model. There is no on-chain cart, so its routes say so.
 */
@Injectable()
export class DatabaseCart implements CartService {
  constructor(
    private readonly aggregates: Aggregates,
    private readonly queries: QueryBus,
  ) {}

  /** Answers from the stored event, so a retried request gets the item it created the first time. */
  async add(userId: string, product: ProductToAdd, ids: CartCommandIds): Promise<CartItemResponse> {
    const outcome = await this.aggregates.cart.execute(
      userId,
      { type: 'AddItem', itemId: randomUUID(), product },
      { actor: { kind: 'user', id: userId }, ...ids },
    );
    // An add that is not refused stores one ItemAdded (a retry gets the first one back).
    return viewOfItemAdded(outcome.events.find((e) => e.type === 'ItemAdded')!);
  }

  /** The cart is the user's own subject, so another user's item id is simply not found in it. */
  async remove(userId: string, itemId: string, ids: CartCommandIds): Promise<void> {
    await this.aggregates.cart.execute(
      userId,
      { type: 'RemoveItem', itemId, reason: 'removed' },
      { actor: { kind: 'user', id: userId }, ...ids },
    );
  }

  async init(): Promise<{ created: boolean; message: string }> {
    return {
      created: false,
      message: 'Carts are kept in the database (CART_SERVICE=db); nothing to initialise',
    };
  }

  async address(): Promise<{ cartAddress: string | null; exists: boolean }> {
    return { cartAddress: null, exists: false };
  }

  async info(userId: string): Promise<{ cartAddress: string; itemCount: number; exists: boolean }> {
    const { items } = await this.queries.execute(new GetCartQuery(userId));
    return { cartAddress: '', itemCount: items.length, exists: false };
  }
}
