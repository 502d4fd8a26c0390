import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Logger, withCorrelationId } from '@shop/logging';

const correlationHeader = 'x-correlation-id';
const acceptable = /^[A-Za-z0-9._:-]{1,100}$/;
const startedAt = Symbol('startedAt');

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's correlation id, for the commands a route runs to record (installRequestContext). */
    correlationId?: string;
  }
}

/**
 * Gives every request a correlation id (the caller's, when it sends a sane one) that the
 * response echoes, every log line carries, and every event appended while serving it records.
 */
export function installRequestContext(fastify: FastifyInstance, logger: Logger): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const offered = request.headers[correlationHeader];
    const correlationId = typeof offered === 'string' && acceptable.test(offered) ? offered : randomUUID();
    reply.header(correlationHeader, correlationId);
    request.correlationId = correlationId;
    (request as { [startedAt]?: bigint })[startedAt] = process.hrtime.bigint();
    withCorrelationId(correlationId, done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const started = (request as { [startedAt]?: bigint })[startedAt] ?? process.hrtime.bigint();
    logger.info(
      {
        method: request.method,
        url: request.url,
        route: request.routeOptions.url,
        status: reply.statusCode,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      },
      'request',
    );
    done();
  });
}
