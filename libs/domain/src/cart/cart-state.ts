import { CartItemSnapshot } from '@shop/contracts';
import { GrowOnlySet } from '../grow-only-set';
import { CheckoutReservation } from './checkout-reservation';

export interface CartItem extends CartItemSnapshot {
  itemId: string;
}

export interface CartState {
  /** Active items only, by item id, in the order they were added. */
  items: Map<string, CartItem>;
  /** Every item id ever added, so a removed item's id cannot be reused for a new one. */
  knownItemIds: GrowOnlySet<string>;
  /** Items that left because they were ordered: they come back if the payment fails. */
  ordered: Map<string, CartItem>;
  /** The open checkout of each item: at most one order per item at a time. */
  checkouts: Map<string, CheckoutReservation>;
  /** On-chain object id of each item, as the indexer saw it (CART_SERVICE=onchain). */
  links: Map<string, string>;
  /**
   * Items out of the cart whose object the contract's cart still holds (CART_SERVICE=onchain):
   * removed by the user (the delete is the user's answer at once, the chain catches up after) or
   * ordered (the object leaves once the order is done with it, see objectKeptForOrder).
   */
  chainRemovals: Map<string, CartItem>;
  /** Items whose object has left the contract's cart: such an item cannot come back. */
  leftChain: Set<string>;
  /** The latest order of each item: its contract checkout needs the object still on chain. */
  lastOrders: Map<string, string>;
  onChainCartId: string | null;
}

export const initialCartState = (): CartState => ({
  items: new Map(),
  knownItemIds: GrowOnlySet.empty(),
  ordered: new Map(),
  checkouts: new Map(),
  links: new Map(),
  chainRemovals: new Map(),
  leftChain: new Set(),
  lastOrders: new Map(),
  onChainCartId: null,
});

export const CART_CAPACITY = 10;
/**
 * The highest price a shopper can add, in cents (100 million dollars): far above any product,
 * and exact as a JSON number and in the read models' bigint columns.
 */
export const MAX_PRICE_CENTS = 10_000_000_000;
export const DEFAULT_VARIANT = 'Default';
