import type { ProductSummary } from '@shop/product-search';
import type { CartItemView } from '../tool-schemas';
import type { Conversation } from './conversation';
import {
  readAdded,
  readCart,
  readComparison,
  readDetails,
  readRemoved,
  readSearch,
  type SearchSnapshot,
} from './tool-results';

/** What "it" points at: the product last looked at, or the cart item last added. */
export type Focus = { kind: 'product'; product: ProductSummary } | { kind: 'cart-item'; item: CartItemView };

export interface KnownCart {
  items: CartItemView[];
  /** A viewCart result exists, so `items` is the whole cart as of then, not only what was added here. */
  listed: boolean;
  /** That listing was taken during this request. */
  fresh: boolean;
}

export interface ShoppingState {
  /** The latest search, found something or not: the topic a refinement ("in blue") narrows. */
  search?: SearchSnapshot;
  /** The latest search that found products: what "the second one" points into, across empty searches. */
  listing?: SearchSnapshot;
  focus?: Focus;
  /** The products last put side by side: "the cheaper one", "the other one" point into them. */
  compared?: ProductSummary[];
  cart: KnownCart;
  /** The list the shopper saw last, which "the second one" of an ambiguous verb ("buy") points into. */
  lastListing?: 'search' | 'cart' | 'compare';
  /** Every cart item the conversation has shown, by id, removed ones included, to name what was removed. */
  seenItems: Map<string, CartItemView>;
}

/**
 * What the conversation has established, replayed from its tool results in order: the latest search,
 * the latest one that listed products (ordinals point into it), the focus of "it", and the cart as last
 * listed plus the adds and removals seen since.
 */
export function shoppingState({ earlier, current }: Conversation): ShoppingState {
  const state: ShoppingState = { cart: { items: [], listed: false, fresh: false }, seenItems: new Map() };
  const currentIds = new Set(current.map(({ toolCallId }) => toolCallId));
  for (const exchange of [...earlier, ...current]) {
    const search = readSearch(exchange);
    if (search) state.search = search;
    // A search that found nothing showed the shopper nothing to point at: what they saw before stands.
    if (search && search.products.length > 0) {
      state.listing = search;
      state.lastListing = 'search';
      const [only] = search.products;
      state.focus = search.products.length === 1 && only ? { kind: 'product', product: only } : undefined;
    }
    const comparison = readComparison(exchange);
    if (comparison) {
      state.compared = comparison.products;
      state.lastListing = 'compare';
      state.focus = undefined;
    }
    const details = readDetails(exchange);
    if (details) state.focus = { kind: 'product', product: details };
    const listed = readCart(exchange);
    if (listed) {
      state.cart = { items: listed, listed: true, fresh: currentIds.has(exchange.toolCallId) };
      state.lastListing = 'cart';
      for (const item of listed) state.seenItems.set(item.id, item);
    }
    const added = readAdded(exchange);
    if (added) {
      state.cart.items = [...state.cart.items, added];
      state.focus = { kind: 'cart-item', item: added };
      state.seenItems.set(added.id, added);
    }
    const removed = readRemoved(exchange);
    if (removed !== undefined) {
      state.cart.items = state.cart.items.filter(({ id }) => id !== removed);
      if (state.focus?.kind === 'cart-item' && state.focus.item.id === removed) state.focus = undefined;
    }
  }
  return state;
}
