import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isInstrumented, tracer } from '@shop/tracing';

/** Probes and scrapes every few seconds would bury the requests in their own spans. */
const operationalPaths = /^\/(metrics|health|ready)(\?|$)/;

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
 * A server span per request, from Fastify's hooks, when tracing runs the `fastify`
 * instrumentation (the default): it continues the caller's W3C `traceparent`, is active while
 * the request is handled (entered as the request context and correlation id are), and is named
 * after the route (`POST /api/cart`). It replaces the http instrumentation's server side, which
 * wraps every listener of each request and response, and cost more in the profiles.
 * Under that instrumentation, when it runs as well, it is that span's child.
 */
export function installRequestSpans(fastify: FastifyInstance): void {
  if (!isInstrumented('fastify')) return;
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (operationalPaths.test(request.url)) return done();
    const active = context.active();
    const parent = trace.getSpan(active) ? active : propagation.extract(active, request.headers);
    const span = tracer().startSpan(
      request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          // The path only: a query string may carry what a trace must not keep.
          'url.path': request.url.split('?', 1)[0],
          'url.scheme': request.protocol,
        },
      },
      parent,
    );
    spans.set(request, span);
    context.with(trace.setSpan(parent, span), done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const span = take(request);
    if (span) {
      const route = request.routeOptions.url;
      if (route) {
        span.setAttribute('http.route', route);
        span.updateName(`${request.method} ${route}`);
      }
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    const span = take(request);
    span?.setStatus({ code: SpanStatusCode.ERROR, message: 'the client closed the connection' });
    span?.end();
    done();
  });
}
