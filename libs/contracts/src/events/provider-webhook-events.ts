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

/** Longest raw body recorded whole; a longer one keeps its head, and its digest names it exactly. */
export const MAX_RECORDED_WEBHOOK_BODY = 200_000;

export const ProviderWebhookUnrecognized = defineEvent({
  type: 'ProviderWebhookUnrecognized',
  version: 1,
  aggregate: 'provider-webhook',
  description:
    'A verified provider webhook delivery whose body the parser did not recognise as an order event, recorded raw so it is never lost: the process manager parks it for an operator, and retries it with the parser of the day.',
  schema: z.object({
    body: z.string().max(MAX_RECORDED_WEBHOOK_BODY),
    bodyBytes: z.number().int().nonnegative(),
    bodySha256: z.string().regex(/^[0-9a-f]{64}$/),
    reason: z.string().max(1000),
  }),
});

export const providerWebhookEvents = [ProviderWebhookReceived, ProviderWebhookUnrecognized] as const;
