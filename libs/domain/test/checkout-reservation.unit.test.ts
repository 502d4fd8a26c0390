import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CartEvent } from '@shop/contracts';
import { cartDecider } from '../src/cart/cart-decider';
import {
  ABANDONED_RESERVATION_MS,
  OrderCreationFailure,
  releasesReservation,
  resumesNow,
} from '../src/cart/checkout-reservation';
import { fold } from '../src/decider';
import { deciderSpec } from './decider-spec';

const { given } = deciderSpec(cartDecider);

const itemId = randomUUID();
const orderId = randomUUID();
const startedAt = '2026-01-01T10:00:00.000Z';
const added: CartEvent = {
  type: 'ItemAdded',
  data: {
    itemId,
    productId: 'P1',
    productName: 'Trail shoe',
    price: 4999,
    image: 'https://img.example.com/1.jpg',
    productUrl: 'https://shop.example.com/p/1',
    retailer: 'Example',
    size: 'Default',
    color: 'Default',
  },
};
const started: CartEvent = { type: 'ItemCheckoutStarted', data: { itemId, orderId, startedAt } };
const doubt: CartEvent = { type: 'ItemCheckoutInDoubt', data: { itemId, orderId, reason: 'timeout' } };
const fail = (failure: OrderCreationFailure, reason = 'provider orders.create failed') =>
  ({ type: 'FailCheckout', itemId, orderId, failure, reason }) as const;

describe('a checkout whose provider order creation failed', () => {
  it('releases the item when the provider refused the order with a 4xx', () => {
    given(added, started)
      .when(fail({ answer: 'status', status: 400 }, 'invalid address'))
      .then([{ type: 'ItemCheckoutReleased', data: { itemId, orderId, reason: 'invalid address' } }]);
  });

  it('keeps an in-doubt reservation when a repeat is refused: the earlier attempt may have made the order', () => {
    given(added, started, doubt)
      .when(fail({ answer: 'status', status: 400 }))
      .then([]);
  });

  it('releases the item for an order nobody can pay, in doubt or not', () => {
    given(added, started, doubt)
      .when(fail({ answer: 'unpayable' }, 'too little USDC'))
      .then([{ type: 'ItemCheckoutReleased', data: { itemId, orderId, reason: 'too little USDC' } }]);
  });

  it('releases the item for an order nobody can pay', () => {
    given(added, started)
      .when(fail({ answer: 'unpayable' }, 'too little USDC'))
      .then([{ type: 'ItemCheckoutReleased', data: { itemId, orderId, reason: 'too little USDC' } }]);
  });

  it.each<[string, OrderCreationFailure]>([
    ['no answer came', { answer: 'none' }],
    ['a 5xx came after the provider may have acted', { answer: 'status', status: 502 }],
    ['a 2xx could not be read', { answer: 'unreadable', status: 201 }],
    ['a 409 said another request holds the key', { answer: 'status', status: 409 }],
    ['a 429 said too many', { answer: 'status', status: 429 }],
  ])('keeps the reservation in doubt when %s', (_, failure) => {
    const when = given(added, started).when(fail(failure, 'ambiguous'));
    when.then([{ type: 'ItemCheckoutInDoubt', data: { itemId, orderId, reason: 'ambiguous' } }]);
    const after = fold(cartDecider, [added, started, ...when.events()]);
    expect(after.checkouts.get(itemId)).toEqual({ orderId, startedAt: Date.parse(startedAt), inDoubt: true });
  });

  it('records doubt once, and ignores a failure of an order the item is no longer reserved for', () => {
    given(added, started, doubt)
      .when(fail({ answer: 'none' }))
      .then([]);
    given(added, started)
      .when({ ...fail({ answer: 'status', status: 400 }), orderId: randomUUID() })
      .then([]);
  });

  it('is resumed at once when in doubt, and otherwise only once its request is presumed dead', () => {
    const at = Date.parse(startedAt);
    expect(resumesNow({ orderId, startedAt: at, inDoubt: true }, at)).toBe(true);
    expect(resumesNow({ orderId, startedAt: at, inDoubt: false }, at + 1000)).toBe(false);
    expect(resumesNow({ orderId, startedAt: at, inDoubt: false }, at + ABANDONED_RESERVATION_MS)).toBe(true);
  });

  /**
   * The invariant behind "one provider order per checkout": whatever answers come back, in any
   * order, the order id changes only when no attempt under it can have made a payable order:
   * every attempt so far was refused before any was in doubt, or the order is unpayable.
   */
  it('keeps one order id for the item while any attempt under it may have made a payable order', () => {
    const failure: fc.Arbitrary<OrderCreationFailure> = fc.oneof(
      fc.constant({ answer: 'none' as const }),
      fc.constant({ answer: 'unpayable' as const }),
      fc
        .integer({ min: 200, max: 599 })
        .map((status) =>
          status < 300 ? { answer: 'unreadable' as const, status } : { answer: 'status' as const, status },
        ),
    );
    fc.assert(
      fc.property(fc.array(failure, { maxLength: 8 }), (failures) => {
        let history: CartEvent[] = [added, started];
        let mayExist = false;
        for (const f of failures) {
          const before = fold(cartDecider, history).checkouts.get(itemId)!;
          const released = releasesReservation(before, f);
          history = [...history, ...cartDecider.decide(fail(f), fold(cartDecider, history))];
          const open = fold(cartDecider, history).checkouts.get(itemId);
          const refused =
            f.answer === 'status' &&
            f.status >= 400 &&
            f.status < 500 &&
            ![408, 409, 425, 429].includes(f.status);
          mayExist ||= !refused && f.answer !== 'unpayable';
          if (released) {
            expect(f.answer === 'unpayable' || !mayExist).toBe(true);
            expect(open).toBeUndefined();
            return;
          }
          expect(open?.orderId).toBe(orderId);
        }
      }),
    );
  });
});
