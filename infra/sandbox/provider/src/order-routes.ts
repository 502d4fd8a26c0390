import { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { idempotencyKey, IdempotencyStore } from './idempotency';
import { createOrderBody, OrderBook } from './order-book';
import { parseOrReject } from './provider-api-error';

const orderParams = z.object({ orderId: z.string().min(1) });

/** One order the stand-in created, with the idempotency key it was created under. */
export interface CreatedOrder {
  orderId: string;
  idempotencyKey?: string;
}

export function registerOrderRoutes(
  app: FastifyInstance,
  orders: OrderBook,
  idempotency: IdempotencyStore,
  created: CreatedOrder[],
): void {
  app.post('/api/2022-06-09/orders', { config: { operation: 'orders.create' } }, async (request, reply) => {
    const key = idempotencyKey(request.headers);
    const answer = await idempotency.remember('orders.create', key, async () => {
      const body = orders.create(parseOrReject(createOrderBody, request.body));
      created.push({ orderId: body.order.orderId, idempotencyKey: key });
      return { statusCode: 201, body };
    });
    return reply.code(answer.statusCode).send(answer.body);
  });

  app.get('/api/2022-06-09/orders/:orderId', { config: { operation: 'orders.get' } }, async (request) => {
    const { orderId } = parseOrReject(orderParams, request.params);
    return orders.get(orderId);
  });
}
