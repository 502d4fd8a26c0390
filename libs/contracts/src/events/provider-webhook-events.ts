import { z } from 'zod';
import { defineEvent } from '../event-definition';
import { orderPayment, orderQuote } from './order-events';

export const ProviderWebhookReceived = defineEvent({
  type: 'ProviderWebhookReceived',
  version: 1,
  aggregate: 'provider-webhook',
  description:
    'A verified provider webhook delivery (the aggregate id is its svix id), recorded once at sequence 0 so a redelivery has no second effect.',
  schema: z.object({
    eventType: z.string().min(1).max(100),
    actionId: z.string().nullable(),
    providerOrderId: z.string().nullable(),
    phase: z.string().nullable(),
    payment: orderPayment.nullable(),
    quote: orderQuote.nullable(),
    failureReason: z.string().nullable(),
  }),
});

export const providerWebhookEvents = [ProviderWebhookReceived] as const;
