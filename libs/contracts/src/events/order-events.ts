import { z } from 'zod';
import { defineEvent } from '../event-definition';
import { cartItemSnapshot } from './cart-events';

/** The order status values of the spec's Order resource. */
export const orderStatuses = [
  'awaiting_approval',
  'payment_confirmed',
  'in_progress',
  'delivered',
  'cancelled',
] as const;
export type OrderStatus = (typeof orderStatuses)[number];

export const orderPayment = z.object({ status: z.string(), currency: z.string() });
export const orderQuote = z.object({ totalPrice: z.object({ amount: z.string(), currency: z.string() }) });

/** What a provider update says about an order; `phase` is the provider's own phase string. */
const orderProgress = z.object({
  phase: z.string().min(1).max(100),
  payment: orderPayment.nullable(),
  quote: orderQuote.nullable(),
  /** The provider webhook delivery that caused it, when one did. */
  deliveryId: z.string().nullable(),
});

export const OrderCreated = defineEvent({
  type: 'OrderCreated',
  version: 1,
  aggregate: 'order',
  description: 'An order was created at the provider (checkout of one cart item) or for a deposit.',
  schema: z.object({
    userId: z.uuid(),
    type: z.enum(['checkout', 'deposit']),
    cartItemId: z.uuid().nullable(),
    providerOrderId: z.string().min(1),
    phase: z.string().min(1).max(100),
    item: cartItemSnapshot.nullable(),
    payment: orderPayment.nullable(),
    quote: orderQuote.nullable(),
    walletAddress: z.string().nullable(),
    /** The pre-built EVM transaction the wallet approves; repeated checkouts return it again. */
    serializedTransaction: z.string().nullable(),
  }),
});

export const OrderPaymentConfirmed = defineEvent({
  type: 'OrderPaymentConfirmed',
  version: 1,
  aggregate: 'order',
  description: 'The provider confirmed payment (status payment_confirmed).',
  schema: orderProgress,
});

export const OrderDeliveryStarted = defineEvent({
  type: 'OrderDeliveryStarted',
  version: 1,
  aggregate: 'order',
  description: 'The provider started delivery (status in_progress).',
  schema: orderProgress,
});

export const OrderDelivered = defineEvent({
  type: 'OrderDelivered',
  version: 1,
  aggregate: 'order',
  description: 'The provider completed delivery (status delivered, terminal).',
  schema: orderProgress,
});

export const OrderCancelled = defineEvent({
  type: 'OrderCancelled',
  version: 1,
  aggregate: 'order',
  description: 'Payment or delivery failed (status cancelled, terminal).',
  schema: orderProgress.extend({ stage: z.enum(['payment', 'delivery']), reason: z.string().max(1000) }),
});

export const OrderCheckedOutOnChain = defineEvent({
  type: 'OrderCheckedOutOnChain',
  version: 1,
  aggregate: 'order',
  description: "The contract's checkout recorded the order on chain; the digest is the order's tx_hash.",
  schema: z.object({ txDigest: z.string() }),
});

export const OrderOnChainCheckoutFailed = defineEvent({
  type: 'OrderOnChainCheckoutFailed',
  version: 1,
  aggregate: 'order',
  description: "The contract's checkout call failed; the order's status stands and chain state may diverge.",
  schema: z.object({ reason: z.string().max(1000) }),
});

export const OrderOnChainCheckoutSubmitted = defineEvent({
  type: 'OrderOnChainCheckoutSubmitted',
  version: 1,
  aggregate: 'order',
  description:
    'A contract checkout was sent and its answer lost: its digest is looked up before another is sent.',
  schema: z.object({ txDigest: z.string() }),
});

export const orderEvents = [
  OrderCreated,
  OrderPaymentConfirmed,
  OrderDeliveryStarted,
  OrderDelivered,
  OrderCancelled,
  OrderCheckedOutOnChain,
  OrderOnChainCheckoutFailed,
  OrderOnChainCheckoutSubmitted,
] as const;
