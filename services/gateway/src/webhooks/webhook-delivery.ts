import type { ProviderWebhookEvent as RecordedWebhookEvent } from '@shop/contracts';
import type { ProviderWebhookEvent } from '@shop/provider';

export type WebhookDelivery = Extract<RecordedWebhookEvent, { type: 'ProviderWebhookReceived' }>['data'];

/** What the order process needs from a parsed provider webhook. */
export function deliveryOf(event: ProviderWebhookEvent): WebhookDelivery {
  const { order } = event;
  return {
    eventType: event.type.slice(0, 100),
    actionId: event.actionId ?? null,
    providerOrderId: order.orderId,
    phase: order.phase,
    payment: { status: order.payment.status, currency: order.payment.currency ?? 'usdc' },
    quote: order.quote?.totalPrice ? { totalPrice: order.quote.totalPrice } : null,
    failureReason: order.payment.failureReason?.message ?? null,
  };
}
