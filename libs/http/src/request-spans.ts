import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isInstrumented, operationalPaths, tracer } from '@shop/tracing';

/**
 * Each request's span, beside the request rather than on it: a property added to (and deleted
 * from) Fastify's request objects would change their shape and slow every access to them.
 */
const spans = new WeakMap<FastifyRequest, Span>();

/** The request's span, once: a request both aborted and answered ends it only once. */
function take(request: FastifyRequest): Span | undefined {
  const span = spans.get(request);
  spans.delete(request);
  return span;
}

/**
 * Starts a request's server span (installRequestContext calls it when tracing runs the
 * `fastify` instrumentation, the default) and gives the context to handle the request in, or
 * undefined for a probe. The span continues the caller's W3C `traceparent` and is named after
 * the route (`POST /api/cart`): routing is done before the first hook, so it is named once. It
 * replaces the http instrumentation's server side, which wraps every listener of each request
 * and response, and cost more in the profiles; under that instrumentation, when it runs as well,
 * it is that span's child.
 */
export function startRequestSpan(request: FastifyRequest): Context | undefined {
  if (operationalPaths.test(request.url)) return undefined;
  const active = context.active();
  const parent = trace.getSpan(active) ? active : propagation.extract(active, request.headers);
  const route = request.routeOptions.url;
  const span = tracer().startSpan(
    route ? `${request.method} ${route}` : request.method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': request.method,
        // The path only: a query string may carry what a trace must not keep.
        'url.path': request.url.split('?', 1)[0],
        'url.scheme': request.protocol,
        ...(route ? { 'http.route': route } : {}),
      },
    },
    parent,
  );
  spans.set(request, span);
  return trace.setSpan(parent, span);
}

/** Ends the span of an answered request with its status; a server error marks it as failed. */
export function endRequestSpan(request: FastifyRequest, reply: FastifyReply): void {
  const span = take(request);
  if (!span) return;
  span.setAttribute('http.response.status_code', reply.statusCode);
  if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** Ends the span of a request its client gave up on: no response follows to end it. */
export function endAbortedRequestSpan(request: FastifyRequest, done: () => void): void {
  const span = take(request);
  span?.setStatus({ code: SpanStatusCode.ERROR, message: 'the client closed the connection' });
  span?.end();
  done();
}

/**
 * Request spans alone, for an app without a request context (a local stand-in): hooks of their
 * own around startRequestSpan and endRequestSpan. A service has installRequestContext do it.
 */
export function installRequestSpans(fastify: FastifyInstance): void {
  if (!isInstrumented('fastify')) return;
  fastify.addHook('onRequestAbort', endAbortedRequestSpan);
  fastify.addHook('onRequest', (request, _reply, done) => {
    const spanContext = startRequestSpan(request);
    if (spanContext) context.with(spanContext, done);
    else done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    endRequestSpan(request, reply);
    done();
  });
}
