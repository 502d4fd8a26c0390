import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OrderEvent } from '@shop/contracts';
import { itemNeededOnChain, objectKeptForOrder } from '../src/order/item-needed-on-chain';
import { orderDecider } from '../src/order/order-decider';
import { deciderSpec } from './decider-spec';
import { orderedItem } from './ordered-item';

const { given } = deciderSpec(orderDecider);

const created: OrderEvent = {
  type: 'OrderCreated',
  data: {
    userId: randomUUID(),
    cartItemId: randomUUID(),
    providerOrderId: 'po-1',
    phase: 'payment',
    type: 'checkout',
    item: orderedItem,
    payment: null,
    quote: null,
    walletAddress: '0xabc',
    serializedTransaction: 'tx',
  },
};

describe('order decider, the contract checkout', () => {
  it('keeps each sent checkout whose answer was lost, once', () => {
    const submitted = given(created).when({ type: 'RecordOnChainCheckoutSubmitted', txDigest: 'd1' });
    submitted.then([{ type: 'OrderOnChainCheckoutSubmitted', data: { txDigest: 'd1' } }]);
    expect(given(created, ...submitted.events()).state.onChainSubmitted).toEqual(['d1']);
    given(created, ...submitted.events())
      .when({ type: 'RecordOnChainCheckoutSubmitted', txDigest: 'd1' })
      .then([]);
  });

  it('records one digest as tx_hash: the first, whoever reports it', () => {
    const first = given(created).when({ type: 'RecordOnChainCheckout', txDigest: 'd1' });
    first.then([{ type: 'OrderCheckedOutOnChain', data: { txDigest: 'd1' } }]);
    const checkedOut = given(created, ...first.events());
    checkedOut.when({ type: 'RecordOnChainCheckout', txDigest: 'd1' }).then([]);
    checkedOut.when({ type: 'RecordOnChainCheckoutSubmitted', txDigest: 'd2' }).then([]);
    checkedOut.when({ type: 'RecordOnChainCheckoutFailure', reason: 'x' }).then([]);
  });
});

describe('an order and its item on chain', () => {
  const paid: OrderEvent = {
    type: 'OrderPaymentConfirmed',
    data: { phase: 'delivery', payment: null, quote: null, deliveryId: 'd' },
  };
  it('needs the item on chain while open or paid without a contract checkout outcome', () => {
    expect(itemNeededOnChain(given(created).state)).toBe(true);
    expect(itemNeededOnChain(given(created, paid).state)).toBe(true);
    expect(
      itemNeededOnChain(
        given(created, paid, { type: 'OrderCheckedOutOnChain', data: { txDigest: 'd1' } }).state,
      ),
    ).toBe(false);
    expect(
      itemNeededOnChain(
        given(created, paid, { type: 'OrderOnChainCheckoutFailed', data: { reason: 'x' } }).state,
      ),
    ).toBe(false);
    const cancelled: OrderEvent = {
      type: 'OrderCancelled',
      data: { phase: 'payment', payment: null, quote: null, deliveryId: 'd', stage: 'payment', reason: 'r' },
    };
    expect(itemNeededOnChain(given(created, cancelled).state)).toBe(false);
  });

  it("keeps a delivered or deleted item's object only until the order's contract checkout has an outcome", () => {
    const checkedOut: OrderEvent = { type: 'OrderCheckedOutOnChain', data: { txDigest: 'd1' } };
    const delivered: OrderEvent = {
      type: 'OrderDelivered',
      data: { phase: 'completed', payment: null, quote: null, deliveryId: 'd2' },
    };
    for (const ordered of [true, false]) {
      expect(objectKeptForOrder(given(created, paid).state, ordered)).toBe(true);
      expect(objectKeptForOrder(given(created, paid, delivered).state, ordered)).toBe(true);
      expect(objectKeptForOrder(given(created, paid, checkedOut).state, ordered)).toBe(false);
      expect(objectKeptForOrder(given(created, paid, checkedOut, delivered).state, ordered)).toBe(false);
    }
  });

  it("keeps an ordered item's object when its order is cancelled at payment, which puts the item back", () => {
    const cancelledAt = (stage: 'payment' | 'delivery'): OrderEvent => ({
      type: 'OrderCancelled',
      data: { phase: stage, payment: null, quote: null, deliveryId: 'd', stage, reason: 'r' },
    });
    expect(objectKeptForOrder(given(created, cancelledAt('payment')).state, true)).toBe(true);
    expect(objectKeptForOrder(given(created, cancelledAt('payment')).state, false)).toBe(false);
    expect(objectKeptForOrder(given(created, paid, cancelledAt('delivery')).state, true)).toBe(false);
  });
});
