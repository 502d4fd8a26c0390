import { CartEvent } from '@shop/contracts';
import { Decider, unhandledCommand } from '../decider';
import {
  AddItem,
  BeginCheckout,
  CartCommand,
  FailCheckout,
  LinkOnChainItem,
  ProductToAdd,
  RecordOnChainCart,
  ReleaseCheckout,
  RemoveItem,
  RemoveOnChainItem,
  RestoreItem,
} from './cart-commands';
import { releasesReservation } from './checkout-reservation';
import { cartFull, cartItemNotFound, duplicateCartItem, invalidProduct } from './cart-errors';
import { CART_CAPACITY, CartState, DEFAULT_VARIANT, initialCartState, MAX_PRICE_CENTS } from './cart-state';

function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

function validProduct(product: ProductToAdd) {
  if (!Number.isSafeInteger(product.price) || product.price <= 0) {
    throw invalidProduct('price must be a positive whole number of cents');
  }
  if (product.price > MAX_PRICE_CENTS) throw invalidProduct(`price must be at most ${MAX_PRICE_CENTS} cents`);
  if (!isWebUrl(product.image)) throw invalidProduct('image must be an http(s) URL');
  if (!isWebUrl(product.productUrl)) throw invalidProduct('productUrl must be an http(s) URL');
  return {
    ...product,
    size: product.size?.trim() || DEFAULT_VARIANT,
    color: product.color?.trim() || DEFAULT_VARIANT,
  };
}

const sameVariant = (a: { productId: string; size: string; color: string }, b: typeof a) =>
  a.productId === b.productId && a.size === b.size && a.color === b.color;

/** The cart's (product, size, color) uniqueness, over its active items. */
const holdsVariant = (state: CartState, item: { productId: string; size: string; color: string }) =>
  [...state.items.values()].some((i) => sameVariant(i, item));

const isFull = (state: CartState) => state.items.size >= CART_CAPACITY;

const linkedItemOf = (state: CartState, objectId: string) =>
  [...state.links].find(([, linked]) => linked === objectId)?.[0];

function addItem(command: AddItem, state: CartState): CartEvent[] {
  const product = validProduct(command.product);
  if (state.knownItemIds.has(command.itemId)) throw duplicateCartItem();
  // The indexer saw the new object first and listed it already: that item is this add's.
  if (command.objectId && linkedItemOf(state, command.objectId)) return [];
  if (!command.acceptedOnChain) {
    if (holdsVariant(state, product)) throw duplicateCartItem();
    if (isFull(state)) throw cartFull();
  }
  const { productId, productName, price, image, size, color, productUrl, retailer } = product;
  const link: CartEvent[] = command.objectId
    ? [{ type: 'ItemLinkedOnChain', data: { itemId: command.itemId, objectId: command.objectId } }]
    : [];
  return [
    {
      type: 'ItemAdded',
      data: {
        itemId: command.itemId,
        productId,
        productName,
        price,
        image,
        size,
        color,
        productUrl,
        retailer,
      },
    },
    ...link,
  ];
}

function removeItem(command: RemoveItem, state: CartState): CartEvent[] {
  if (!state.items.has(command.itemId)) throw cartItemNotFound();
  return [{ type: 'ItemRemoved', data: { itemId: command.itemId, reason: command.reason } }];
}

function beginCheckout(command: BeginCheckout, state: CartState): CartEvent[] {
  if (!state.items.has(command.itemId)) throw cartItemNotFound();
  // An open checkout of the item wins: the caller answers with that order instead.
  if (state.checkouts.has(command.itemId)) return [];
  return [
    {
      type: 'ItemCheckoutStarted',
      data: {
        itemId: command.itemId,
        orderId: command.orderId,
        startedAt: new Date(command.now).toISOString(),
      },
    },
  ];
}

function releaseCheckout(command: ReleaseCheckout, state: CartState): CartEvent[] {
  if (state.checkouts.get(command.itemId)?.orderId !== command.orderId) return [];
  return [
    {
      type: 'ItemCheckoutReleased',
      data: { itemId: command.itemId, orderId: command.orderId, reason: command.reason },
    },
  ];
}

/**
 * A definite refusal releases the item; any other failure may have created the order at the
 * provider, so the reservation stays, marked in doubt, and the next checkout resumes it under
 * the same order id instead of creating a second order.
 */
function failCheckout(command: FailCheckout, state: CartState): CartEvent[] {
  const reservation = state.checkouts.get(command.itemId);
  if (reservation?.orderId !== command.orderId) return [];
  const { itemId, orderId } = command;
  const reason = command.reason.slice(0, 500);
  if (releasesReservation(reservation, command.failure))
    return [{ type: 'ItemCheckoutReleased', data: { itemId, orderId, reason } }];
  if (reservation.inDoubt) return [];
  return [{ type: 'ItemCheckoutInDoubt', data: { itemId, orderId, reason } }];
}

function recordOnChainCart(command: RecordOnChainCart, state: CartState): CartEvent[] {
  if (state.onChainCartId) return [];
  return [
    {
      type: 'CartInitializedOnChain',
      data: { cartObjectId: command.cartObjectId, txDigest: command.txDigest },
    },
  ];
}

function linkOnChainItem(command: LinkOnChainItem, state: CartState): CartEvent[] {
  if (linkedItemOf(state, command.objectId)) return [];
  const seen = command.product;
  // An item the user already removed is linked too, so its pending removal can reach the object.
  const match = [...state.items.values(), ...state.chainRemovals.values()].find(
    (i) => !state.links.has(i.itemId) && sameVariant(i, seen),
  );
  if (match)
    return [{ type: 'ItemLinkedOnChain', data: { itemId: match.itemId, objectId: command.objectId } }];
  // Added on chain by someone else: the chain holds it, so the cart lists it too.
  const itemId = command.fallbackItemId;
  return [
    {
      type: 'ItemAdded',
      data: {
        itemId,
        productId: seen.productId,
        productName: seen.productName,
        price: Number(seen.priceCents),
        image: seen.imageUrl,
        size: seen.size,
        color: seen.color,
        productUrl: seen.productUrl,
        retailer: seen.retailer,
      },
    },
    { type: 'ItemLinkedOnChain', data: { itemId, objectId: command.objectId } },
  ];
}

function removeOnChainItem(command: RemoveOnChainItem, state: CartState): CartEvent[] {
  const itemId = linkedItemOf(state, command.objectId);
  if (!itemId) return [];
  if (state.chainRemovals.has(itemId))
    return [{ type: 'ItemRemovedFromChain', data: { itemId, objectId: command.objectId } }];
  if (!state.items.has(itemId)) return [];
  return [{ type: 'ItemRemoved', data: { itemId, reason: 'chain' } }];
}

function restoreItem(command: RestoreItem, state: CartState): CartEvent[] {
  const item = state.ordered.get(command.itemId);
  if (!item) return [];
  // The contract's cart no longer holds it: listing it again would part the cart from the chain.
  if (state.leftChain.has(command.itemId)) return [];
  // The shopper may have filled the cart or re-added the product meanwhile: then it stays out.
  if (isFull(state) || holdsVariant(state, item)) return [];
  return [{ type: 'ItemRestored', data: { itemId: command.itemId } }];
}

/**
 * One cart per user on `cart.<userId>`. The 10-item limit and the (product, size, color)
 * uniqueness are decided here against the state the commit is appended on, so parallel
 * requests can never overfill the cart or add a duplicate.
 */
export const cartDecider: Decider<CartCommand, CartEvent, CartState> = {
  initialState: initialCartState,

  decide(command, state) {
    switch (command.type) {
      case 'AddItem':
        return addItem(command, state);
      case 'RemoveItem':
        return removeItem(command, state);
      case 'BeginCheckout':
        return beginCheckout(command, state);
      case 'ReleaseCheckout':
        return releaseCheckout(command, state);
      case 'FailCheckout':
        return failCheckout(command, state);
      case 'RecordOnChainCart':
        return recordOnChainCart(command, state);
      case 'LinkOnChainItem':
        return linkOnChainItem(command, state);
      case 'RemoveOnChainItem':
        return removeOnChainItem(command, state);
      case 'RestoreItem':
        return restoreItem(command, state);
      default:
        return unhandledCommand(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'ItemAdded': {
        const items = new Map(state.items).set(event.data.itemId, event.data);
        return { ...state, items, knownItemIds: state.knownItemIds.add(event.data.itemId) };
      }
      case 'ItemRemoved': {
        const items = new Map(state.items);
        const removed = items.get(event.data.itemId);
        items.delete(event.data.itemId);
        const ordered = new Map(state.ordered);
        if (removed && event.data.reason === 'ordered') ordered.set(event.data.itemId, removed);
        // A deleted or ordered item's object stays in the contract's cart until removed on chain.
        if (!removed || event.data.reason === 'chain' || !state.onChainCartId)
          return { ...state, items, ordered };
        const chainRemovals = new Map(state.chainRemovals).set(event.data.itemId, removed);
        return { ...state, items, ordered, chainRemovals };
      }
      case 'ItemRemovedFromChain': {
        const chainRemovals = new Map(state.chainRemovals);
        chainRemovals.delete(event.data.itemId);
        return { ...state, chainRemovals, leftChain: new Set(state.leftChain).add(event.data.itemId) };
      }
      case 'ItemRestored': {
        const item = state.ordered.get(event.data.itemId);
        if (!item) return state;
        const ordered = new Map(state.ordered);
        ordered.delete(event.data.itemId);
        // Back in the cart, the item keeps its object on chain.
        const chainRemovals = new Map(state.chainRemovals);
        chainRemovals.delete(event.data.itemId);
        return {
          ...state,
          items: new Map(state.items).set(event.data.itemId, item),
          ordered,
          chainRemovals,
        };
      }
      case 'ItemCheckoutStarted':
        return {
          ...state,
          lastOrders: new Map(state.lastOrders).set(event.data.itemId, event.data.orderId),
          checkouts: new Map(state.checkouts).set(event.data.itemId, {
            orderId: event.data.orderId,
            startedAt: Date.parse(event.data.startedAt),
            inDoubt: false,
          }),
        };
      case 'ItemCheckoutInDoubt': {
        const reservation = state.checkouts.get(event.data.itemId);
        if (reservation?.orderId !== event.data.orderId) return state;
        const checkouts = new Map(state.checkouts).set(event.data.itemId, { ...reservation, inDoubt: true });
        return { ...state, checkouts };
      }
      case 'CartInitializedOnChain':
        return { ...state, onChainCartId: event.data.cartObjectId };
      case 'ItemLinkedOnChain':
        return { ...state, links: new Map(state.links).set(event.data.itemId, event.data.objectId) };
      case 'ItemCheckoutReleased': {
        const checkouts = new Map(state.checkouts);
        checkouts.delete(event.data.itemId);
        return { ...state, checkouts };
      }
    }
  },
};
