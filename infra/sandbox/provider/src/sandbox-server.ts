import { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { installRequestSpans } from '@shop/http';
import { registerControlRoutes } from './control-routes';
import { afterEffect, Fault, FaultInjector, ProviderOperation } from './faults';
import { idempotencyKey, IdempotencyStore } from './idempotency';
import { IdentityProvider } from './identity';
import { registerIdentityRoutes } from './identity-routes';
import { OrderBook } from './order-book';
import { CreatedOrder, registerOrderRoutes } from './order-routes';
import { ProviderApiError } from './provider-api-error';
import { createSandboxControl, RecordedRequest, SandboxControl } from './sandbox-control';
import { registerWalletRoutes } from './wallet-routes';
import { WalletRegistry } from './wallet-registry';
import { WebhookSender, WebhookTarget } from './webhook-sender';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Names the provider call a route serves, for fault injection and the request log. */
    operation?: ProviderOperation;
  }
}

export interface ProviderSandboxOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** The only `X-API-KEY` value the /api routes accept. */
  apiKey?: string;
  jwt?: { issuer?: string; audience?: string; ttlSeconds?: number; refreshTtlSeconds?: number };
  webhook?: WebhookTarget;
  webhookRetryDelaysMs?: number[];
  webhookTimeoutMs?: number;
  /** Time between payment, shipping and delivery after an approval; 0 (the default) does all at once. */
  stageDelayMs?: number;
  logLevel?: string;
}

export interface ProviderSandbox extends SandboxControl {
  /** Base URL to configure as the provider's API URL, e.g. `http://127.0.0.1:4010`. */
  url: string;
  jwksUrl: string;
  apiKey: string;
  issuer: string;
  audience: string;
  close(): Promise<void>;
}

export async function startProviderSandbox(options: ProviderSandboxOptions = {}): Promise<ProviderSandbox> {
  const host = options.host ?? '127.0.0.1';
  const apiKey = options.apiKey ?? 'sk_sandbox_local';
  if (apiKey === '') throw new Error('the provider sandbox needs a non-empty API key');
  const issuer = options.jwt?.issuer ?? 'provider-sandbox';
  const audience = options.jwt?.audience ?? 'provider-sandbox';

  const identity = await IdentityProvider.create({
    issuer,
    audience,
    tokenTtlSeconds: options.jwt?.ttlSeconds ?? 3600,
    refreshTtlSeconds: options.jwt?.refreshTtlSeconds ?? 30 * 24 * 3600,
  });
  const wallets = new WalletRegistry();
  const sender = new WebhookSender({
    target: options.webhook,
    retryDelaysMs: options.webhookRetryDelaysMs ?? [5_000, 300_000, 1_800_000],
    attemptTimeoutMs: options.webhookTimeoutMs ?? 15_000,
  });
  const orders = new OrderBook(wallets, (events) => sender.publish(events), options.stageDelayMs);
  const faults = new FaultInjector();
  const afterEffectFaults = new WeakMap<object, Fault>();
  const requests: RecordedRequest[] = [];
  const idempotency = new IdempotencyStore();
  const created: CreatedOrder[] = [];
  const control = createSandboxControl({ identity, wallets, orders, sender, faults, requests, created });

  // Hung requests must not hold close() open, hence the forced close of live connections.
  const app = Fastify({ logger: { level: options.logLevel ?? 'silent' }, forceCloseConnections: true });
  // A traced provider continues the caller's trace: the stand-in does as well, where tracing runs.
  installRequestSpans(app);

  app.addHook('onRequest', async (request, reply) => {
    const { operation } = request.routeOptions.config;
    if (!operation) return;
    const recorded: RecordedRequest = {
      operation,
      method: request.method,
      path: request.url,
      idempotencyKey: idempotencyKey(request.headers),
      at: new Date().toISOString(),
    };
    requests.push(recorded);
    const fault = faults.take(operation);
    if (fault && afterEffect(fault.mode)) {
      afterEffectFaults.set(request, fault);
      return;
    }
    if (fault?.mode === 'hang') {
      // Accept the connection and go quiet until the caller gives up or the sandbox closes.
      reply.hijack();
      await new Promise((resolve) => request.raw.socket.once('close', resolve));
      recorded.closedUnanswered = true;
      return;
    }
    if (fault) {
      return reply
        .code(fault.status)
        .send(new ProviderApiError(fault.status, `Sandbox fault in ${operation}`).toBody());
    }
    if (request.url.startsWith('/api/') && request.headers['x-api-key'] !== apiKey) {
      return reply
        .code(401)
        .send(new ProviderApiError(401, 'Unauthorized: invalid or missing API key').toBody());
    }
  });

  // The request was handled (a wallet funded, an order created); only the answer goes wrong.
  app.addHook('onSend', async (request, reply, payload) => {
    const fault = afterEffectFaults.get(request);
    if (!fault) return payload;
    afterEffectFaults.delete(request);
    if (fault.mode === 'lost') {
      request.raw.socket.destroy();
      return payload;
    }
    if (fault.mode === 'hang-after') {
      await new Promise((resolve) => request.raw.socket.once('close', resolve));
      return payload;
    }
    if (fault.mode === 'late') {
      await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      return payload;
    }
    void reply.code(fault.status);
    if (fault.mode === 'garbled-after') return JSON.stringify({ unexpected: 'a body of another format' });
    return JSON.stringify(
      new ProviderApiError(fault.status, `Sandbox fault after handling the request`).toBody(),
    );
  });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ProviderApiError) return reply.code(error.statusCode).send(error.toBody());
    const fastifyStatus = (error as { statusCode?: number }).statusCode;
    const status = fastifyStatus && fastifyStatus < 500 ? fastifyStatus : 500;
    if (status === 500) request.log.error(error);
    return reply.code(status).send({ error: true, message: (error as Error).message });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(new ProviderApiError(404, `No route ${request.method} ${request.url}`).toBody()),
  );

  registerIdentityRoutes(app, identity);
  registerWalletRoutes(app, wallets, idempotency);
  registerOrderRoutes(app, orders, idempotency, created);
  registerControlRoutes(app, control);

  await app.listen({ host, port: options.port ?? 0 });
  const { port } = app.server.address() as AddressInfo;
  const reachableHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const url = `http://${reachableHost}:${port}`;

  return {
    ...control,
    url,
    jwksUrl: `${url}/.well-known/jwks.json`,
    apiKey,
    issuer,
    audience,
    async close() {
      orders.close();
      sender.close();
      await app.close();
    },
  };
}
