import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, ValidParams, ValidQuery } from '@shop/http';
import { CurrentIdentity } from '../auth/current-identity.decorator';
import type { SessionIdentity } from '../auth/session-identity';
import { gatedErrors, validationError } from '../http/common-errors';
import { GetOrderQuery, ListOrdersQuery, OrderPage } from './order-queries';
import { orderStatuses } from '@shop/contracts';
import { orderListSchema, OrderResponse, orderSchema } from './order.schema';

const positiveInteger = (fallback: string, max?: number) =>
  z
    .string()
    .regex(/^[1-9][0-9]{0,8}$/, 'must be a positive integer')
    .default(fallback)
    .transform(Number)
    .refine((n) => max === undefined || n <= max, `must be at most ${max}`);

const listQuery = z.object({
  page: positiveInteger('1').describe('string of a positive integer, default 1'),
  limit: positiveInteger('20', 100).describe('string of a positive integer, default 20, at most 100'),
  type: z.enum(['checkout', 'deposit']).optional(),
  status: z.enum(orderStatuses).optional(),
  phase: z.string().min(1).max(100).optional(),
});
const orderParams = z.object({ orderId: z.uuid() });

@Controller('api/orders')
export class OrdersController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiRoute({
    summary: "The user's orders, newest first",
    tags: ['orders'],
    access: 'gated',
    query: listQuery,
    responses: { 200: { description: 'A page of orders', schema: orderListSchema } },
    errors: [validationError, ...gatedErrors],
  })
  list(
    @CurrentIdentity() identity: SessionIdentity,
    @ValidQuery() query: z.infer<typeof listQuery>,
  ): Promise<OrderPage> {
    const { page, limit, ...filters } = query;
    return this.queries.execute(new ListOrdersQuery(identity.userId, page, limit, filters));
  }

  @Get(':orderId')
  @ApiRoute({
    summary: 'One order, merged with the live status at the provider (phase, payment, quote)',
    tags: ['orders'],
    access: 'gated',
    params: orderParams,
    responses: { 200: { description: 'The order', schema: orderSchema } },
    errors: [
      validationError,
      { status: 404, code: 'OrderNotFoundError', description: 'order missing or owned by another user' },
      { status: 502, code: 'CheckoutOrderCreationError', description: 'provider unavailable' },
      ...gatedErrors,
    ],
  })
  get(
    @CurrentIdentity() identity: SessionIdentity,
    @ValidParams() params: z.infer<typeof orderParams>,
  ): Promise<OrderResponse> {
    return this.queries.execute(new GetOrderQuery(identity.userId, params.orderId));
  }
}
