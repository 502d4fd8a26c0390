import Fastify, { FastifyInstance } from 'fastify';
import { installHttpMetrics } from './http-metrics';
import { checkReadiness, ReadinessCheck } from './readiness';
import { ServiceMetrics } from './service-metrics';

export interface OpsServerOptions {
  metrics: ServiceMetrics;
  checks: readonly ReadinessCheck[];
  host: string;
  /** 0 picks a free port; `url` says which. */
  port: number;
  /** More routes on the same server (the analytics operator endpoint). */
  routes?: (fastify: FastifyInstance) => void;
}

export interface OpsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * The HTTP face of a process that has no API of its own (the projector) or a small one
 * (analytics): /health (liveness), /ready (dependencies) and /metrics, like the Nest services.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const { metrics, checks } = options;
  const fastify = Fastify({ logger: false, forceCloseConnections: 'idle' });
  installHttpMetrics(fastify, metrics);
  fastify.get('/health', async () => ({ ok: true }));
  fastify.get('/ready', async (_request, reply) => {
    const readiness = await checkReadiness(checks);
    return reply.code(readiness.ready ? 200 : 503).send(readiness);
  });
  fastify.get('/metrics', async (_request, reply) =>
    reply.header('content-type', metrics.contentType).send(await metrics.render()),
  );
  options.routes?.(fastify);
  await fastify.listen({ host: options.host, port: options.port });
  const address = fastify.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  return { url: `http://${host}:${port}`, close: () => fastify.close() };
}
