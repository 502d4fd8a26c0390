import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CartEvent } from '@shop/contracts';
import { CartCommand, OnChainItemSeen, ProductToAdd } from '../src/cart/cart-commands';
import { cartDecider } from '../src/cart/cart-decider';
import { fold } from '../src/decider';

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
const given = (...history: CartEvent[]) => fold(cartDecider, history);
const when = (command: CartCommand, ...history: CartEvent[]) =>
  cartDecider.decide(command, given(...history));

describe('cart decider, on chain', () => {
  it('records the object the add created along with the item', () => {
    expect(when({ type: 'AddItem', itemId, product, acceptedOnChain: true, objectId }, onChainCart)).toEqual([
      addedEvent,
      linked,
    ]);
  });

  it('records nothing for an add whose object the indexer already listed', () => {
    const fallback: CartEvent = { ...addedEvent, data: { ...addedEvent.data, itemId: randomUUID() } };
    const link: CartEvent = {
      type: 'ItemLinkedOnChain',
      data: { itemId: fallback.data.itemId as string, objectId },
    };
    expect(
      when(
        { type: 'AddItem', itemId, product, acceptedOnChain: true, objectId },
        onChainCart,
        fallback,
        link,
      ),
    ).toEqual([]);
  });

  it('keeps a removed item pending on chain until its object is gone there', () => {
    expect([...given(onChainCart, addedEvent, linked, removed).chainRemovals.keys()]).toEqual([itemId]);
    const gone = when({ type: 'RemoveOnChainItem', objectId }, onChainCart, addedEvent, linked, removed);
    expect(gone).toEqual([{ type: 'ItemRemovedFromChain', data: { itemId, objectId } }]);
    expect(given(onChainCart, addedEvent, linked, removed, ...gone).chainRemovals.size).toBe(0);
    expect(
      when({ type: 'RemoveOnChainItem', objectId }, onChainCart, addedEvent, linked, removed, ...gone),
    ).toEqual([]);
  });

  it('links a removed item to the object seen later, instead of listing the object as a new item', () => {
    expect(
      when(
        { type: 'LinkOnChainItem', objectId, fallbackItemId: randomUUID(), product: seen },
        onChainCart,
        addedEvent,
        removed,
      ),
    ).toEqual([linked]);
  });

  it('keeps an ordered item pending on chain, unless it comes back to the cart', () => {
    const ordered: CartEvent = { type: 'ItemRemoved', data: { itemId, reason: 'ordered' } };
    expect([...given(onChainCart, addedEvent, linked, ordered).chainRemovals.keys()]).toEqual([itemId]);
    const restored = when({ type: 'RestoreItem', itemId }, onChainCart, addedEvent, linked, ordered);
    expect(restored).toEqual([{ type: 'ItemRestored', data: { itemId } }]);
    expect(given(onChainCart, addedEvent, linked, ordered, ...restored).chainRemovals.size).toBe(0);
  });

  it('does not bring back an ordered item whose object has left the chain', () => {
    const ordered: CartEvent = { type: 'ItemRemoved', data: { itemId, reason: 'ordered' } };
    const gone = when({ type: 'RemoveOnChainItem', objectId }, onChainCart, addedEvent, linked, ordered);
    expect(gone).toEqual([{ type: 'ItemRemovedFromChain', data: { itemId, objectId } }]);
    expect(when({ type: 'RestoreItem', itemId }, onChainCart, addedEvent, linked, ordered, ...gone)).toEqual(
      [],
    );
  });

  it('leaves nothing pending on chain for items of a database cart', () => {
    expect(given(addedEvent, removed).chainRemovals.size).toBe(0);
    expect(
      given(addedEvent, { type: 'ItemRemoved', data: { itemId, reason: 'ordered' } }).chainRemovals.size,
    ).toBe(0);
  });
});
