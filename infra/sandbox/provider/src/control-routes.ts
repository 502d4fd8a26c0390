import { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { faultModes, providerOperations } from './faults';
import { parseOrReject } from './provider-api-error';
import { SandboxControl } from './sandbox-control';
import { usdcAmount } from './usdc';

const tokenBody = z.object({ email: z.email(), ttlSeconds: z.number().int().positive().optional() });
const orderParams = z.object({ orderId: z.string().min(1) });
const approveBody = z.object({ webhookOrder: z.enum(['in-order', 'reversed']).optional() }).default({});
const failBody = z.object({ stage: z.enum(['payment', 'delivery']), reason: z.string().optional() });
const fundBody = z.object({ amount: usdcAmount, chain: z.string().optional() });
const targetBody = z.object({ url: z.url(), secret: z.string().min(1) });
const messageParams = z.object({ svixId: z.string().min(1) });
const faultBody = z.object({
  operation: z.enum(providerOperations),
  times: z.number().int().positive().optional(),
  mode: z.enum(faultModes).optional(),
  status: z.number().int().min(400).max(599).optional(),
  delayMs: z.number().int().min(0).max(600_000).optional(),
});

/**
 * Unauthenticated on purpose: the stand-in listens on loopback and these routes replace the
 * provider's console. Open to any origin, so a page of the local stack can act as the shopper's
 * wallet (approving an order) without a server in between; the /api routes stay closed.
 */
export function registerControlRoutes(app: FastifyInstance, control: SandboxControl): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/sandbox/')) return;
    void reply
      .header('access-control-allow-origin', '*')
      .header('access-control-allow-headers', 'content-type')
      .header('access-control-allow-methods', 'GET, POST, PUT, DELETE');
  });
  app.options('/sandbox/*', async (_request, reply) => reply.code(204).send());

  app.post('/sandbox/auth/tokens', async (request, reply) => {
    const { email, ttlSeconds } = parseOrReject(tokenBody, request.body);
    return reply.code(201).send(await control.issueToken(email, { ttlSeconds }));
  });

  app.post('/sandbox/wallets/:locator/fund', async (request) => {
    const { locator } = parseOrReject(z.object({ locator: z.string().min(1) }), request.params);
    const { amount, chain } = parseOrReject(fundBody, request.body);
    return { balance: control.fund(locator, amount, chain) };
  });

  app.post('/sandbox/orders/:orderId/approve', async (request) => {
    const { orderId } = parseOrReject(orderParams, request.params);
    return control.approve(orderId, parseOrReject(approveBody, request.body));
  });

  app.post('/sandbox/orders/:orderId/fail', async (request) => {
    const { orderId } = parseOrReject(orderParams, request.params);
    const { stage, reason } = parseOrReject(failBody, request.body);
    return control.fail(orderId, stage, reason);
  });

  app.put('/sandbox/webhook-target', async (request, reply) => {
    const { url, secret } = parseOrReject(targetBody, request.body);
    control.setWebhookTarget(url, secret);
    return reply.code(204).send();
  });

  app.get('/sandbox/webhooks', async () => control.deliveries());

  app.post('/sandbox/webhooks/:svixId/redeliver', async (request, reply) => {
    control.redeliver(parseOrReject(messageParams, request.params).svixId);
    return reply.code(202).send();
  });

  app.post('/sandbox/faults', async (request, reply) => {
    const { operation, ...options } = parseOrReject(faultBody, request.body);
    control.failNext(operation, options);
    return reply.code(204).send();
  });

  app.delete('/sandbox/faults', async (_request, reply) => {
    control.clearFaults();
    return reply.code(204).send();
  });
}
