import type { ExecuteOptions } from '@shop/commands';
import type { ProductToAdd } from '@shop/domain';
import type { CartItemResponse } from './cart-item.schema';

/** The request's (or chat turn's) correlation id, and for an add the command id that makes a retry safe. */
export type CartCommandIds = Pick<ExecuteOptions, 'correlationId' | 'commandId'>;

/**
 * The cart the routes and the chat's tools act on: the database cart or the on-chain one, as
 * CART_SERVICE says. CartModule binds it once; no caller asks which it got.
 */
export abstract class CartService {
  /** Adds the product; a retry with the same command id answers the item it created the first time. */
  abstract add(userId: string, product: ProductToAdd, ids: CartCommandIds): Promise<CartItemResponse>;
  abstract remove(userId: string, itemId: string, ids: CartCommandIds): Promise<void>;
  abstract init(userId: string): Promise<{ created: boolean; message: string }>;
  abstract address(userId: string): Promise<{ cartAddress: string | null; exists: boolean }>;
  abstract info(userId: string): Promise<{ cartAddress: string; itemCount: number; exists: boolean }>;
}
