import { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { idempotencyKey, IdempotencyStore } from './idempotency';
import { createOrderBody, OrderBook } from './order-book';
import { parseOrReject } from './provider-api-error';

const orderParams = z.object({ orderId: z.string().min(1) });

export function registerOrderRoutes(
  app: FastifyInstance,
  orders: OrderBook,
  idempotency: IdempotencyStore,
): void {
  app.post('/api/2022-06-09/orders', { config: { operation: 'orders.create' } }, async (request, reply) => {
    const answer = await idempotency.remember('orders.create', idempotencyKey(request.headers), async () => ({
      statusCode: 201,
      body: orders.create(parseOrReject(createOrderBody, request.body)),
    }));
    return reply.code(answer.statusCode).send(answer.body);
  });

  app.get('/api/2022-06-09/orders/:orderId', { config: { operation: 'orders.get' } }, async (request) => {
    const { orderId } = parseOrReject(orderParams, request.params);
    return orders.get(orderId);
  });
}
