import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CartEvent } from '@shop/contracts';
import { ProductToAdd } from '../src/cart/cart-commands';
import { cartDecider } from '../src/cart/cart-decider';
import { MAX_PRICE_CENTS } from '../src/cart/cart-state';
import { deciderSpec } from './decider-spec';

const { given } = deciderSpec(cartDecider);

const product = (n: number, overrides: Partial<ProductToAdd> = {}): ProductToAdd => ({
  productId: `P${n}`,
  productName: `Product ${n}`,
  price: 1999,
  image: `https://img.example.com/${n}.jpg`,
  productUrl: `https://shop.example.com/p/${n}`,
  retailer: 'Example',
  ...overrides,
});
const added = (n: number, itemId = randomUUID(), size = 'Default', color = 'Default'): CartEvent => {
  const { size: _s, color: _c, ...p } = product(n);
  return { type: 'ItemAdded', data: { ...p, itemId, size, color } };
};

describe('cart decider', () => {
  it('adds an item with size and color defaulting to Default', () => {
    const itemId = randomUUID();
    given()
      .when({ type: 'AddItem', itemId, product: product(1) })
      .then([added(1, itemId)]);
  });

  it('keeps the given size and color, trimmed', () => {
    const itemId = randomUUID();
    const [event] = given()
      .when({ type: 'AddItem', itemId, product: product(1, { size: ' M ', color: 'Blue' }) })
      .events();
    expect(event!.data).toMatchObject({ size: 'M', color: 'Blue' });
  });

  it('refuses an 11th active item with CartFullError', () => {
    const ten = Array.from({ length: 10 }, (_, i) => added(i));
    given(...ten)
      .when({ type: 'AddItem', itemId: randomUUID(), product: product(99) })
      .thenThrows('CartFullError', 'invalid');
  });

  it('counts only active items toward the limit', () => {
    const ten = Array.from({ length: 10 }, (_, i) => added(i, `00000000-0000-4000-8000-00000000000${i}`));
    const removed: CartEvent = {
      type: 'ItemRemoved',
      data: { itemId: '00000000-0000-4000-8000-000000000003', reason: 'removed' },
    };
    expect(
      given(...ten, removed)
        .when({ type: 'AddItem', itemId: randomUUID(), product: product(99) })
        .events(),
    ).toHaveLength(1);
  });

  it('refuses the same product, size and color with CartDuplicateItemError, but allows another size', () => {
    given(added(1))
      .when({ type: 'AddItem', itemId: randomUUID(), product: product(1) })
      .thenThrows('CartDuplicateItemError', 'conflict');
    expect(
      given(added(1))
        .when({ type: 'AddItem', itemId: randomUUID(), product: product(1, { size: 'L' }) })
        .events(),
    ).toHaveLength(1);
  });

  it('allows a product again once its earlier item was removed', () => {
    const itemId = randomUUID();
    const removed: CartEvent = { type: 'ItemRemoved', data: { itemId, reason: 'removed' } };
    expect(
      given(added(1, itemId), removed)
        .when({ type: 'AddItem', itemId: randomUUID(), product: product(1) })
        .events(),
    ).toHaveLength(1);
  });

  it('refuses an item id the cart ever held, whatever came after, with CartDuplicateItemError', () => {
    const itemId = randomUUID();
    const removed: CartEvent = { type: 'ItemRemoved', data: { itemId, reason: 'removed' } };
    const later = Array.from({ length: 30 }, (_, n) => [
      added(100 + n, `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`),
      {
        type: 'ItemRemoved',
        data: { itemId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, reason: 'removed' },
      } satisfies CartEvent,
    ]).flat();
    given(added(1, itemId), removed, ...later)
      .when({ type: 'AddItem', itemId, product: product(2) })
      .thenThrows('CartDuplicateItemError', 'conflict');
    given(...later, added(1, itemId), removed)
      .when({ type: 'AddItem', itemId, product: product(2) })
      .thenThrows('CartDuplicateItemError', 'conflict');
  });

  it('refuses invalid product data with CartInvalidProductError', () => {
    for (const bad of [
      { price: 0 },
      { price: -5 },
      { price: 19.99 },
      { price: MAX_PRICE_CENTS + 1 },
      { price: 2 ** 63 },
      { image: 'not a url' },
      { productUrl: 'javascript:alert(1)' },
      { image: 'ftp://img.example.com/x.jpg' },
    ]) {
      given()
        .when({ type: 'AddItem', itemId: randomUUID(), product: product(1, bad) })
        .thenThrows('CartInvalidProductError');
    }
  });

  it('accepts a price up to the bound, beyond a 32-bit integer', () => {
    for (const price of [2 ** 31, MAX_PRICE_CENTS]) {
      const [event] = given()
        .when({ type: 'AddItem', itemId: randomUUID(), product: product(1, { price }) })
        .events();
      expect(event).toMatchObject({ type: 'ItemAdded', data: { price } });
    }
  });

  it('removes an active item, and refuses a missing or already removed one with CartItemNotFoundError', () => {
    const itemId = randomUUID();
    given(added(1, itemId))
      .when({ type: 'RemoveItem', itemId, reason: 'removed' })
      .then([{ type: 'ItemRemoved', data: { itemId, reason: 'removed' } }]);
    given(added(1))
      .when({ type: 'RemoveItem', itemId: randomUUID(), reason: 'removed' })
      .thenThrows('CartItemNotFoundError');
    const removed: CartEvent = { type: 'ItemRemoved', data: { itemId, reason: 'removed' } };
    given(added(1, itemId), removed)
      .when({ type: 'RemoveItem', itemId, reason: 'removed' })
      .thenThrows('CartItemNotFoundError');
  });
});
