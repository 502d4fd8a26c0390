import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OrderEvent } from '@shop/contracts';
import { fold } from '../src/decider';
import { itemNeededOnChain, objectKeptForOrder } from '../src/order/item-needed-on-chain';
import { OrderCommand, orderDecider } from '../src/order/order-decider';

const created: OrderEvent = {
  type: 'OrderCreated',
  data: {
    userId: randomUUID(),
    cartItemId: randomUUID(),
    providerOrderId: 'po-1',
    phase: 'payment',
    type: 'checkout',
    item: {
      productId: 'P1',
      productName: 'Product 1',
      price: 1999,
      image: 'https://img.example.com/1.jpg',
      size: 'Default',
      color: 'Default',
      productUrl: 'https://shop.example.com/p/1',
      retailer: 'Example',
    },
    payment: null,
    quote: null,
    walletAddress: '0xabc',
    serializedTransaction: 'tx',
  },
};
const given = (...history: OrderEvent[]) => fold(orderDecider, history);
const when = (command: OrderCommand, ...history: OrderEvent[]) =>
  orderDecider.decide(command, given(...history));

describe('order decider, the contract checkout', () => {
  it('keeps each sent checkout whose answer was lost, once', () => {
    const submitted = when({ type: 'RecordOnChainCheckoutSubmitted', txDigest: 'd1' }, created);
    expect(submitted).toEqual([{ type: 'OrderOnChainCheckoutSubmitted', data: { txDigest: 'd1' } }]);
    expect(given(created, ...submitted).onChainSubmitted).toEqual(['d1']);
    expect(when({ type: 'RecordOnChainCheckoutSubmitted', txDigest: 'd1' }, created, ...submitted)).toEqual(
      [],
    );
  });

  it('records one digest as tx_hash: the first, whoever reports it', () => {
    const first = when({ type: 'RecordOnChainCheckout', txDigest: 'd1' }, created);
    expect(first).toEqual([{ type: 'OrderCheckedOutOnChain', data: { txDigest: 'd1' } }]);
    expect(when({ type: 'RecordOnChainCheckout', txDigest: 'd1' }, created, ...first)).toEqual([]);
    expect(when({ type: 'RecordOnChainCheckoutSubmitted', txDigest: 'd2' }, created, ...first)).toEqual([]);
    expect(when({ type: 'RecordOnChainCheckoutFailure', reason: 'x' }, created, ...first)).toEqual([]);
  });
});

describe('an order and its item on chain', () => {
  const paid: OrderEvent = {
    type: 'OrderPaymentConfirmed',
    data: { phase: 'delivery', payment: null, quote: null, deliveryId: 'd' },
  };
  it('needs the item on chain while open or paid without a contract checkout outcome', () => {
    expect(itemNeededOnChain(given(created))).toBe(true);
    expect(itemNeededOnChain(given(created, paid))).toBe(true);
    expect(
      itemNeededOnChain(given(created, paid, { type: 'OrderCheckedOutOnChain', data: { txDigest: 'd1' } })),
    ).toBe(false);
    expect(
      itemNeededOnChain(given(created, paid, { type: 'OrderOnChainCheckoutFailed', data: { reason: 'x' } })),
    ).toBe(false);
    const cancelled: OrderEvent = {
      type: 'OrderCancelled',
      data: { phase: 'payment', payment: null, quote: null, deliveryId: 'd', stage: 'payment', reason: 'r' },
    };
    expect(itemNeededOnChain(given(created, cancelled))).toBe(false);
  });

  it("keeps a delivered or deleted item's object only until the order's contract checkout has an outcome", () => {
    const checkedOut: OrderEvent = { type: 'OrderCheckedOutOnChain', data: { txDigest: 'd1' } };
    const delivered: OrderEvent = {
      type: 'OrderDelivered',
      data: { phase: 'completed', payment: null, quote: null, deliveryId: 'd2' },
    };
    for (const ordered of [true, false]) {
      expect(objectKeptForOrder(given(created, paid), ordered)).toBe(true);
      expect(objectKeptForOrder(given(created, paid, delivered), ordered)).toBe(true);
      expect(objectKeptForOrder(given(created, paid, checkedOut), ordered)).toBe(false);
      expect(objectKeptForOrder(given(created, paid, checkedOut, delivered), ordered)).toBe(false);
    }
  });

  it("keeps an ordered item's object when its order is cancelled at payment, which puts the item back", () => {
    const cancelledAt = (stage: 'payment' | 'delivery'): OrderEvent => ({
      type: 'OrderCancelled',
      data: { phase: stage, payment: null, quote: null, deliveryId: 'd', stage, reason: 'r' },
    });
    expect(objectKeptForOrder(given(created, cancelledAt('payment')), true)).toBe(true);
    expect(objectKeptForOrder(given(created, cancelledAt('payment')), false)).toBe(false);
    expect(objectKeptForOrder(given(created, paid, cancelledAt('delivery')), true)).toBe(false);
  });
});
