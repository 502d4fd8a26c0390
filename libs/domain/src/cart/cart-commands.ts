import { OrderCreationFailure } from './checkout-reservation';

export interface ProductToAdd {
  productId: string;
  productName: string;
  price: number;
  image: string;
  productUrl: string;
  retailer: string;
  size?: string;
  color?: string;
}

export interface AddItem {
  type: 'AddItem';
  itemId: string;
  product: ProductToAdd;
  /**
   * The cart contract already accepted the item (CART_SERVICE=onchain): the chain's cart is the
   * authority on capacity and duplicates, so the decision records it instead of refusing it.
   */
  acceptedOnChain?: boolean;
  /** The object the contract created for the item, from the add's own transaction. */
  objectId?: string;
}

export interface RemoveItem {
  type: 'RemoveItem';
  itemId: string;
  reason: 'removed' | 'ordered' | 'chain';
}

export interface BeginCheckout {
  type: 'BeginCheckout';
  itemId: string;
  orderId: string;
  now: number;
}

export interface ReleaseCheckout {
  type: 'ReleaseCheckout';
  itemId: string;
  orderId: string;
  reason: string;
}

/** The provider's order creation for the reservation gave no order: released only if it said no. */
export interface FailCheckout {
  type: 'FailCheckout';
  itemId: string;
  orderId: string;
  failure: OrderCreationFailure;
  reason: string;
}

export interface RestoreItem {
  type: 'RestoreItem';
  itemId: string;
}

export interface RecordOnChainCart {
  type: 'RecordOnChainCart';
  cartObjectId: string;
  txDigest: string;
}

export interface OnChainItemSeen {
  productId: string;
  productName: string;
  priceCents: string;
  imageUrl: string;
  productUrl: string;
  size: string;
  color: string;
  retailer: string;
}

export interface LinkOnChainItem {
  type: 'LinkOnChainItem';
  objectId: string;
  /** Id for an item that exists only on chain (added there by someone else). */
  fallbackItemId: string;
  product: OnChainItemSeen;
}

/** The object is gone from the contract's cart: seen by the indexer, or removed by our own call. */
export interface RemoveOnChainItem {
  type: 'RemoveOnChainItem';
  objectId: string;
}

export type CartCommand =
  | AddItem
  | RemoveItem
  | BeginCheckout
  | ReleaseCheckout
  | FailCheckout
  | RestoreItem
  | RecordOnChainCart
  | LinkOnChainItem
  | RemoveOnChainItem;
