import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OrderEvent, OrderStatus } from '@shop/contracts';
import {
  ApplyProviderUpdate,
  CreateOrder,
  orderDecider,
  ProviderUpdateKind,
} from '../src/order/order-decider';
import { providerWebhookDecider } from '../src/provider-webhook/provider-webhook-decider';
import { deciderSpec } from './decider-spec';
import { orderedItem } from './ordered-item';

/** The spec's order status table (backend-api.md, "Order status"), one test per rule. */
const { given } = deciderSpec(orderDecider);

const create: CreateOrder = {
  type: 'CreateOrder',
  userId: randomUUID(),
  cartItemId: randomUUID(),
  providerOrderId: 'po-1',
  phase: 'awaiting-approval',
  item: orderedItem,
  payment: null,
  quote: null,
  walletAddress: '0xabc',
  serializedTransaction: 'tx',
};
const { type: _type, ...order } = create;
const created: OrderEvent = { type: 'OrderCreated', data: { ...order, type: 'checkout' } };

const update = (kind: ProviderUpdateKind, phase = kind): ApplyProviderUpdate => ({
  type: 'ApplyProviderUpdate',
  kind,
  phase,
  payment: null,
  quote: null,
  deliveryId: `delivery-${kind}`,
  reason: null,
});
const progress = (kind: ProviderUpdateKind) => ({
  phase: kind,
  payment: null,
  quote: null,
  deliveryId: `delivery-${kind}`,
});
const paid: OrderEvent = { type: 'OrderPaymentConfirmed', data: progress('payment_succeeded') };
const shipping: OrderEvent = { type: 'OrderDeliveryStarted', data: progress('delivery_initiated') };
const delivered: OrderEvent = { type: 'OrderDelivered', data: progress('delivery_completed') };
const cancelled: OrderEvent = {
  type: 'OrderCancelled',
  data: { ...progress('payment_failed'), stage: 'payment', reason: 'payment_failed' },
};

/** A history that leaves the order in each status. */
const reaching: Record<OrderStatus, OrderEvent[]> = {
  awaiting_approval: [created],
  payment_confirmed: [created, paid],
  in_progress: [created, paid, shipping],
  delivered: [created, paid, shipping, delivered],
  cancelled: [created, cancelled],
};
const kinds: ProviderUpdateKind[] = [
  'payment_succeeded',
  'delivery_initiated',
  'delivery_completed',
  'payment_failed',
  'delivery_failed',
];

describe('order decider: the status table', () => {
  it('a checkout creates the order awaiting_approval with the provider phase, once', () => {
    given().when(create).then([created]);
    expect(given(created).state).toMatchObject({ status: 'awaiting_approval', phase: 'awaiting-approval' });
    given(created).when(create).thenThrows('CONFLICT', 'conflict');
  });

  it('orders.payment.succeeded moves the order to payment_confirmed', () => {
    given(created).when(update('payment_succeeded')).then([paid]);
    expect(given(created, paid).state.status).toBe('payment_confirmed');
  });

  it('orders.delivery.initiated moves the order to in_progress', () => {
    given(created, paid).when(update('delivery_initiated')).then([shipping]);
    expect(given(created, paid, shipping).state.status).toBe('in_progress');
  });

  it('orders.delivery.completed moves the order to delivered', () => {
    given(created, paid, shipping).when(update('delivery_completed')).then([delivered]);
    expect(given(created, paid, shipping, delivered).state.status).toBe('delivered');
  });

  it('orders.payment.failed and orders.delivery.failed cancel the order, saying at which stage', () => {
    given(created).when(update('payment_failed')).then([cancelled]);
    given(created, paid, shipping)
      .when(update('delivery_failed'))
      .then([
        {
          type: 'OrderCancelled',
          data: { ...progress('delivery_failed'), stage: 'delivery', reason: 'delivery_failed' },
        },
      ]);
    expect(given(created, cancelled).state).toMatchObject({ status: 'cancelled', cancelledAt: 'payment' });
  });

  it('the status only moves forward, and may skip a step the provider did not report', () => {
    given(created).when(update('delivery_initiated')).then([shipping]);
    given(created).when(update('delivery_completed')).then([delivered]);
    given(created, paid).when(update('delivery_completed')).then([delivered]);
  });

  it('a late, repeated or backwards provider event changes nothing', () => {
    given(created, paid).when(update('payment_succeeded')).then([]);
    given(created, paid, shipping).when(update('payment_succeeded')).then([]);
    given(created, paid, shipping).when(update('delivery_initiated')).then([]);
  });

  it('cancelled is reachable from every status before delivered', () => {
    for (const status of ['awaiting_approval', 'payment_confirmed', 'in_progress'] as const) {
      for (const kind of ['payment_failed', 'delivery_failed'] as const) {
        const [event] = given(...reaching[status])
          .when(update(kind))
          .events();
        expect(event?.type, `${kind} from ${status}`).toBe('OrderCancelled');
      }
    }
  });

  it('delivered and cancelled are terminal: no provider event changes them', () => {
    for (const status of ['delivered', 'cancelled'] as const) {
      for (const kind of kinds) {
        given(...reaching[status])
          .when(update(kind))
          .then([]);
      }
    }
  });

  it('a late provider event is recorded once by its delivery, though the order ignores it', () => {
    const delivery = {
      eventType: 'orders.payment.succeeded',
      actionId: null,
      providerOrderId: 'po-1',
      phase: 'payment',
      payment: null,
      quote: null,
      failureReason: null,
    };
    const webhook = deciderSpec(providerWebhookDecider);
    const received = webhook.given().when({ type: 'RecordWebhook', delivery });
    received.then([{ type: 'ProviderWebhookReceived', data: delivery }]);
    webhook
      .given(...received.events())
      .when({ type: 'RecordWebhook', delivery })
      .then([]);
    given(...reaching.delivered)
      .when(update('payment_succeeded'))
      .then([]);
  });

  it('a provider event or a contract checkout for an unknown order is refused', () => {
    given().when(update('payment_succeeded')).thenThrows('OrderNotFoundError', 'not_found');
    given().when({ type: 'RecordOnChainCheckout', txDigest: 'd1' }).thenThrows('OrderNotFoundError');
  });

  it('the contract checkout is recorded once as tx_hash, and its failure leaves the status as it is', () => {
    given(created, paid)
      .when({ type: 'RecordOnChainCheckout', txDigest: 'd1' })
      .then([{ type: 'OrderCheckedOutOnChain', data: { txDigest: 'd1' } }]);
    const checkedOut: OrderEvent = { type: 'OrderCheckedOutOnChain', data: { txDigest: 'd1' } };
    given(created, paid, checkedOut).when({ type: 'RecordOnChainCheckout', txDigest: 'd2' }).then([]);
    expect(given(created, paid, checkedOut).state).toMatchObject({
      onChainDigest: 'd1',
      status: 'payment_confirmed',
    });
    const refused: OrderEvent = { type: 'OrderOnChainCheckoutFailed', data: { reason: 'aborted' } };
    expect(given(created, paid, refused).state).toMatchObject({
      status: 'payment_confirmed',
      onChainRefused: true,
    });
    given(created, paid, refused).when(update('delivery_initiated')).then([shipping]);
  });
});
