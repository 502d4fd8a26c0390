import { ProviderUpdateKind } from '@shop/domain';

/** The provider webhook events that change an order; quote events and unknown types change nothing. */
export const updateKindOf: Record<string, ProviderUpdateKind> = {
  'orders.payment.succeeded': 'payment_succeeded',
  'orders.delivery.initiated': 'delivery_initiated',
  'orders.delivery.completed': 'delivery_completed',
  'orders.payment.failed': 'payment_failed',
  'orders.delivery.failed': 'delivery_failed',
};
