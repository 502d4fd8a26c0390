import type { FastifyInstance } from 'fastify';
import { ServiceMetrics } from './service-metrics';

/**
 * Times every response into http_request_duration_seconds. The route label is the route
 * template (`/api/cart/:itemId`), never the URL, so ids do not explode the series count;
 * requests that matched no route share `unmatched`.
 */
export function installHttpMetrics(fastify: FastifyInstance, metrics: ServiceMetrics): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequestDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
