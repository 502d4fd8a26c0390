import { z } from 'zod';
import { orderStatuses } from './events/order-events';

/**
 * An order as GET /api/orders lists it: the gateway's OrderSummary, and the orders the chat's
 * getOrders tool and the agents' list_orders tool answer, so the three never disagree on a field.
 */
export const orderSummarySchema = z.object({
  orderId: z.uuid(),
  providerOrderId: z.string(),
  type: z.enum(['checkout', 'deposit']),
  phase: z.string().describe('provider phase string, e.g. awaiting-approval'),
  status: z.enum(orderStatuses),
  item: z
    .object({
      productId: z.string(),
      productName: z.string(),
      price: z.number().int().describe('USD cents'),
      image: z.string(),
      size: z.string(),
      color: z.string(),
      productUrl: z.string(),
      retailer: z.string(),
    })
    .nullable()
    .describe('product snapshot; null for deposits'),
  payment: z.object({ status: z.string(), currency: z.string() }).nullable(),
  quote: z.object({ totalPrice: z.object({ amount: z.string(), currency: z.string() }) }).nullable(),
  timeline: z
    .array(
      z.object({
        status: z.enum(orderStatuses),
        at: z.string(),
        reason: z.string().optional().describe('why it was cancelled'),
      }),
    )
    .describe('every status the order reached, oldest first, with when'),
  tx_hash: z
    .string()
    .nullable()
    .describe(
      "the on-chain digest: a deposit's transaction, or a checkout's on-chain record (on-chain cart mode); null until there is one",
    ),
  createdAt: z.string(),
  agent: z
    .object({
      clientId: z.string().describe("the agent's OAuth client id"),
      clientName: z
        .string()
        .nullable()
        .describe('the name it registered with; null until the shop has read it'),
    })
    .nullable()
    .describe(
      "the outside agent (MCP) that placed the order on the shopper's behalf; null when the shopper placed it in the shop",
    ),
});
