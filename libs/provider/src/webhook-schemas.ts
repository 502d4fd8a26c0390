import { z } from 'zod';
import { orderSchema } from './order-schemas';

export const providerWebhookEventTypes = [
  'orders.quote.created',
  'orders.quote.updated',
  'orders.payment.succeeded',
  'orders.payment.failed',
  'orders.delivery.initiated',
  'orders.delivery.completed',
  'orders.delivery.failed',
] as const;
export type ProviderWebhookEventType = (typeof providerWebhookEventTypes)[number];

/**
 * The order travels under `data` in observed deliveries and under `payload` in one other
 * account, so both are read. `type` stays a string: unknown event types must be acknowledged,
 * not rejected, or the sender keeps retrying them.
 */
export const providerWebhookEventSchema = z
  .object({
    type: z.string(),
    actionId: z.string().optional(),
    data: orderSchema.optional(),
    payload: orderSchema.optional(),
  })
  .transform((event, ctx) => {
    const order = event.data ?? event.payload;
    if (!order) {
      ctx.addIssue({ code: 'custom', message: 'event carries no order under data or payload' });
      return z.NEVER;
    }
    return { type: event.type, actionId: event.actionId, order };
  });
export type ProviderWebhookEvent = z.output<typeof providerWebhookEventSchema>;
