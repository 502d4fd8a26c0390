import { Selectable } from 'kysely';
import { z } from 'zod';
import { orderStatuses } from '@shop/contracts';
import { apiSchema } from '@shop/http';
import { OrdersTable } from '@shop/read-models';

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

export function toOrder(row: Selectable<OrdersTable>): OrderResponse {
  return {
    orderId: row.order_id,
    providerOrderId: row.provider_order_id,
    type: row.type,
    phase: row.phase,
    status: row.status,
    item: row.item,
    payment: row.payment,
    quote: row.quote,
    createdAt: new Date(row.created_at).toISOString(),
  };
}
