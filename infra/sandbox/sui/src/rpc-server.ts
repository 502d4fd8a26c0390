import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { AddressInfo } from 'node:net';
import type { FaultPlan } from './faults';
import { INVALID_REQUEST, METHOD_NOT_FOUND, RpcError } from './rpc-error';
import type { RpcHandler } from './rpc-methods';

const INTERNAL_ERROR = -32603;

interface JsonRpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

export interface RpcServer {
  url: string;
  close(): Promise<void>;
}

/**
 * JSON-RPC 2.0 over `POST /`, one request per body as the SDK sends them. Faults and latency
 * from the plan are applied per request before (or, for a lost response, after) handling it.
 */
export async function startRpcServer(options: {
  host: string;
  port: number;
  methods: Record<string, RpcHandler>;
  faults: FaultPlan;
  onRequest(method: string): void;
  /** Routes beside JSON-RPC (the faucet and test wallet). */
  routes?(app: FastifyInstance): void;
}): Promise<RpcServer> {
  const app = Fastify({ logger: false });
  options.routes?.(app);

  app.post('/', async (request, reply) => {
    const body = request.body as JsonRpcRequest | null;
    const id = body && typeof body === 'object' && 'id' in body ? body.id : null;
    if (!body || typeof body !== 'object' || Array.isArray(body) || typeof body.method !== 'string') {
      return { jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message: 'Invalid Request' } };
    }
    const method = body.method;
    options.onRequest(method);

    const delay = options.faults.latencyFor(method);
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    const fault = options.faults.take(method);
    if (fault === 'unavailable') return reply.code(503).type('text/plain').send('Service Unavailable');
    if (fault === 'disconnect') return cutConnection(reply);

    const answer = await dispatch(options.methods, method, body.params, id);
    if (fault === 'lost-response') return cutConnection(reply);
    return answer;
  });

  await app.listen({ host: options.host, port: options.port });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://${options.host}:${port}`, close: () => app.close() };
}

async function dispatch(methods: Record<string, RpcHandler>, method: string, params: unknown, id: unknown) {
  const handler = methods[method];
  if (!handler) return { jsonrpc: '2.0', id, error: { code: METHOD_NOT_FOUND, message: 'Method not found' } };
  try {
    const result = await handler(Array.isArray(params) ? params : []);
    return { jsonrpc: '2.0', id, result };
  } catch (error) {
    if (error instanceof RpcError)
      return { jsonrpc: '2.0', id, error: { code: error.code, message: error.message } };
    const message = error instanceof Error ? error.message : String(error);
    return { jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message } };
  }
}

function cutConnection(reply: FastifyReply): void {
  reply.hijack();
  reply.raw.socket?.destroy();
}
