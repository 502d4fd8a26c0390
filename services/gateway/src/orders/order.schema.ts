import { z } from 'zod';
import { orderStatuses } from '@shop/contracts';
import { apiSchema } from '@shop/http';

export const orderSchema = apiSchema(
  'OrderSummary',
  z.object({
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
      .describe('every status the order reached, oldest first'),
    tx_hash: z
      .string()
      .nullable()
      .describe(
        "the on-chain digest: a deposit's transaction, or a checkout's on-chain record (on-chain cart mode); null until there is one",
      ),
    createdAt: z.string(),
  }),
);
export type OrderResponse = z.infer<typeof orderSchema>;

export const orderListSchema = apiSchema(
  'OrderList',
  z.object({
    orders: z.array(orderSchema),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
  }),
);
