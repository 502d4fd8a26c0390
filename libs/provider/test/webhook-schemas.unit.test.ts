import { describe, expect, it } from 'vitest';
import { providerWebhookEventSchema } from '../src';

const order = {
  orderId: 'b2959ca5-65e4-466a-bd26-1bd05cb4f837',
  phase: 'delivery',
  payment: {
    status: 'completed',
    currency: 'usdc',
    method: 'base-sepolia',
    received: { txId: '0xabc', amount: '14.06', currency: 'usdc' },
  },
  quote: { totalPrice: { amount: '14.06', currency: 'usdc' } },
  lineItems: [{ delivery: { status: 'in-progress' } }],
};

describe('provider webhook events', () => {
  it('reads the order from data, as in observed deliveries', () => {
    const event = providerWebhookEventSchema.parse({
      type: 'orders.payment.succeeded',
      actionId: '7f0c2a9e-1d3b-4c55-9a61-0e2b8d4f6a10',
      timestamp: 1766300000,
      data: order,
    });

    expect(event).toEqual({
      type: 'orders.payment.succeeded',
      actionId: '7f0c2a9e-1d3b-4c55-9a61-0e2b8d4f6a10',
      order: expect.objectContaining({ orderId: order.orderId, phase: 'delivery' }),
    });
  });

  it('reads the order from payload too, and accepts event types it does not know', () => {
    const event = providerWebhookEventSchema.parse({ type: 'orders.refund.completed', payload: order });

    expect(event.type).toBe('orders.refund.completed');
    expect(event.order.orderId).toBe(order.orderId);
  });

  it('refuses an event without an order', () => {
    const result = providerWebhookEventSchema.safeParse({ type: 'orders.payment.failed', actionId: 'a' });

    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('event carries no order under data or payload');
  });
});
