import { randomUUID } from 'node:crypto';
import { context } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import { Logger, withCorrelationId } from '@shop/logging';
import { isInstrumented } from '@shop/tracing';
import { endAbortedRequestSpan, endRequestSpan, startRequestSpan } from './request-spans';

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
 * response echoes, every log line carries, and every event appended while serving it records;
 * and, when tracing runs the `fastify` instrumentation, its server span (startRequestSpan), active
 * while it is handled. One pair of hooks does both: each hook is a step of every request.
 */
export function installRequestContext(fastify: FastifyInstance, logger: Logger): void {
  const traced = isInstrumented('fastify');
  if (traced) fastify.addHook('onRequestAbort', endAbortedRequestSpan);
  fastify.addHook('onRequest', (request, reply, done) => {
    const offered = request.headers[correlationHeader];
    const correlationId = typeof offered === 'string' && acceptable.test(offered) ? offered : randomUUID();
    reply.header(correlationHeader, correlationId);
    request.correlationId = correlationId;
    (request as { [startedAt]?: bigint })[startedAt] = process.hrtime.bigint();
    const spanContext = traced ? startRequestSpan(request) : undefined;
    withCorrelationId(correlationId, spanContext ? () => context.with(spanContext, done) : done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    if (traced) endRequestSpan(request, reply);
    // At a level that leaves the line out (the bench's, an operator's at scale), nothing of it is built.
    if (!logger.isLevelEnabled('info')) return done();
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
