import { z } from 'zod';
import { orderSummarySchema } from '@shop/contracts';
import { apiSchema } from '@shop/http';

export const orderSchema = apiSchema('OrderSummary', orderSummarySchema);
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
