import { z } from 'zod';
import { defineEvent } from '../event-definition';

export const cartItemSnapshot = z.object({
  productId: z.string().min(1).max(255),
  productName: z.string().min(1).max(500),
  price: z.number().int().positive(),
  image: z.string(),
  size: z.string().max(50),
  color: z.string().max(50),
  productUrl: z.string(),
  retailer: z.string().min(1).max(255),
});
export type CartItemSnapshot = z.infer<typeof cartItemSnapshot>;

export const ItemAdded = defineEvent({
  type: 'ItemAdded',
  version: 1,
  aggregate: 'cart',
  description: 'A product was put in the cart (the aggregate id is the user id).',
  schema: cartItemSnapshot.extend({ itemId: z.uuid() }),
});

export const ItemRemoved = defineEvent({
  type: 'ItemRemoved',
  version: 1,
  aggregate: 'cart',
  description: 'An item left the cart: removed by the user, ordered, or removed on chain.',
  schema: z.object({ itemId: z.uuid(), reason: z.enum(['removed', 'ordered', 'chain']) }),
});

export const ItemRestored = defineEvent({
  type: 'ItemRestored',
  version: 1,
  aggregate: 'cart',
  description: 'An item that left the cart because it was ordered came back: the payment failed.',
  schema: z.object({ itemId: z.uuid() }),
});

export const ItemCheckoutStarted = defineEvent({
  type: 'ItemCheckoutStarted',
  version: 1,
  aggregate: 'cart',
  description: 'A checkout of this item began under an order id; one open checkout per item at a time.',
  schema: z.object({ itemId: z.uuid(), orderId: z.uuid(), startedAt: z.iso.datetime() }),
});

export const ItemCheckoutReleased = defineEvent({
  type: 'ItemCheckoutReleased',
  version: 1,
  aggregate: 'cart',
  description:
    "The item's checkout ended (the provider refused it, or the order was cancelled or delivered).",
  schema: z.object({ itemId: z.uuid(), orderId: z.uuid(), reason: z.string().max(500) }),
});

export const ItemCheckoutInDoubt = defineEvent({
  type: 'ItemCheckoutInDoubt',
  version: 1,
  aggregate: 'cart',
  description:
    "The provider's answer to the item's order creation said neither yes nor no (none came, a 5xx, a 2xx that could not be read): the order may exist, so the item stays reserved for this order id and the next checkout resumes it under the same idempotency key.",
  schema: z.object({ itemId: z.uuid(), orderId: z.uuid(), reason: z.string().max(500) }),
});

export const CartInitializedOnChain = defineEvent({
  type: 'CartInitializedOnChain',
  version: 1,
  aggregate: 'cart',
  description: "The user's cart object was created on chain (CART_SERVICE=onchain).",
  schema: z.object({ cartObjectId: z.string(), txDigest: z.string() }),
});

export const ItemLinkedOnChain = defineEvent({
  type: 'ItemLinkedOnChain',
  version: 1,
  aggregate: 'cart',
  description: 'The indexer saw the cart item on chain: its on-chain object id.',
  schema: z.object({ itemId: z.uuid(), objectId: z.string() }),
});

export const ItemRemovedFromChain = defineEvent({
  type: 'ItemRemovedFromChain',
  version: 1,
  aggregate: 'cart',
  description:
    "An item the user removed is gone from the contract's cart too (its removal there was pending).",
  schema: z.object({ itemId: z.uuid(), objectId: z.string() }),
});

export const cartEvents = [
  ItemAdded,
  ItemRemoved,
  ItemRestored,
  ItemCheckoutStarted,
  ItemCheckoutReleased,
  ItemCheckoutInDoubt,
  CartInitializedOnChain,
  ItemLinkedOnChain,
  ItemRemovedFromChain,
] as const;
