import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CartEvent } from '@shop/contracts';
import { OnChainItemSeen, ProductToAdd } from '../src/cart/cart-commands';
import { cartDecider } from '../src/cart/cart-decider';
import { deciderSpec } from './decider-spec';

const { given } = deciderSpec(cartDecider);

const product: ProductToAdd = {
  productId: 'P1',
  productName: 'Product 1',
  price: 1999,
  image: 'https://img.example.com/1.jpg',
  productUrl: 'https://shop.example.com/p/1',
  retailer: 'Example',
};
const seen: OnChainItemSeen = {
  productId: 'P1',
  productName: 'Product 1',
  priceCents: '1999',
  imageUrl: product.image,
  productUrl: product.productUrl,
  size: 'Default',
  color: 'Default',
  retailer: 'Example',
};
const itemId = randomUUID();
const objectId = `0x${'ab'.repeat(32)}`;
const onChainCart: CartEvent = {
  type: 'CartInitializedOnChain',
  data: { cartObjectId: '0x1', txDigest: 'd' },
};
const addedEvent: CartEvent = {
  type: 'ItemAdded',
  data: {
    itemId,
    productId: 'P1',
    productName: 'Product 1',
    price: 1999,
    image: product.image,
    size: 'Default',
    color: 'Default',
    productUrl: product.productUrl,
    retailer: 'Example',
  },
};
const linked: CartEvent = { type: 'ItemLinkedOnChain', data: { itemId, objectId } };
const removed: CartEvent = { type: 'ItemRemoved', data: { itemId, reason: 'removed' } };

describe('cart decider, on chain', () => {
  it('records the object the add created along with the item', () => {
    given(onChainCart)
      .when({ type: 'AddItem', itemId, product, acceptedOnChain: true, objectId })
      .then([addedEvent, linked]);
  });

  it('records nothing for an add whose object the indexer already listed', () => {
    const fallback: CartEvent = { ...addedEvent, data: { ...addedEvent.data, itemId: randomUUID() } };
    const link: CartEvent = {
      type: 'ItemLinkedOnChain',
      data: { itemId: fallback.data.itemId as string, objectId },
    };
    given(onChainCart, fallback, link)
      .when({ type: 'AddItem', itemId, product, acceptedOnChain: true, objectId })
      .then([]);
  });

  it('keeps a removed item pending on chain until its object is gone there', () => {
    expect([...given(onChainCart, addedEvent, linked, removed).state.chainRemovals.keys()]).toEqual([itemId]);
    const gone = given(onChainCart, addedEvent, linked, removed).when({
      type: 'RemoveOnChainItem',
      objectId,
    });
    gone.then([{ type: 'ItemRemovedFromChain', data: { itemId, objectId } }]);
    expect(given(onChainCart, addedEvent, linked, removed, ...gone.events()).state.chainRemovals.size).toBe(
      0,
    );
    given(onChainCart, addedEvent, linked, removed, ...gone.events())
      .when({ type: 'RemoveOnChainItem', objectId })
      .then([]);
  });

  it('links a removed item to the object seen later, instead of listing the object as a new item', () => {
    given(onChainCart, addedEvent, removed)
      .when({ type: 'LinkOnChainItem', objectId, fallbackItemId: randomUUID(), product: seen })
      .then([linked]);
  });

  it('keeps an ordered item pending on chain, unless it comes back to the cart', () => {
    const ordered: CartEvent = { type: 'ItemRemoved', data: { itemId, reason: 'ordered' } };
    expect([...given(onChainCart, addedEvent, linked, ordered).state.chainRemovals.keys()]).toEqual([itemId]);
    const restored = given(onChainCart, addedEvent, linked, ordered).when({ type: 'RestoreItem', itemId });
    restored.then([{ type: 'ItemRestored', data: { itemId } }]);
    expect(
      given(onChainCart, addedEvent, linked, ordered, ...restored.events()).state.chainRemovals.size,
    ).toBe(0);
  });

  it('does not bring back an ordered item whose object has left the chain', () => {
    const ordered: CartEvent = { type: 'ItemRemoved', data: { itemId, reason: 'ordered' } };
    const gone = given(onChainCart, addedEvent, linked, ordered).when({
      type: 'RemoveOnChainItem',
      objectId,
    });
    gone.then([{ type: 'ItemRemovedFromChain', data: { itemId, objectId } }]);
    given(onChainCart, addedEvent, linked, ordered, ...gone.events())
      .when({ type: 'RestoreItem', itemId })
      .then([]);
  });

  it('leaves nothing pending on chain for items of a database cart', () => {
    expect(given(addedEvent, removed).state.chainRemovals.size).toBe(0);
    expect(
      given(addedEvent, { type: 'ItemRemoved', data: { itemId, reason: 'ordered' } }).state.chainRemovals
        .size,
    ).toBe(0);
  });
});
