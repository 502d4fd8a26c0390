import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordSpans, type SpanRecorder } from '@shop/testing';
import { createLogger, currentCorrelationId } from '@shop/logging';
import { setInstrumented } from '@shop/tracing';
import { installRequestContext } from '../src/request-context';

const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
const callerSpan = '00f067aa0ba902b7';

let recorder: SpanRecorder;
let app: FastifyInstance;
let activeInHandler: string | undefined;
let correlationInHandler: string | undefined;

async function appWithRoutes(): Promise<FastifyInstance> {
  const fastify = Fastify();
  installRequestContext(fastify, createLogger('test', 'silent'));
  fastify.post('/api/things/:id', async (request) => {
    // After the body was parsed and an await, the request's span is still the active one.
    await new Promise((resolve) => setImmediate(resolve));
    activeInHandler = trace.getActiveSpan()?.spanContext().spanId;
    correlationInHandler = currentCorrelationId();
    return { got: request.body };
  });
  fastify.get('/health', async () => ({ ok: true }));
  fastify.get('/api/broken', async () => {
    throw new Error('boom');
  });
  await fastify.ready();
  return fastify;
}

beforeEach(() => {
  recorder = recordSpans();
  activeInHandler = undefined;
  correlationInHandler = undefined;
});
afterEach(async () => {
  await app?.close();
  setInstrumented([]);
  await recorder.stop();
});

describe("a service's request span", () => {
  it("continues the caller's trace, is active in the handler beside the correlation id, and is named after the route", async () => {
    setInstrumented(['fastify']);
    app = await appWithRoutes();
    const response = await app.inject({
      method: 'POST',
      url: '/api/things/42?token=secret',
      headers: { traceparent: `00-${callerTrace}-${callerSpan}-01`, 'x-correlation-id': 'req-42' },
      payload: { a: 1 },
    });
    expect(response.statusCode).toBe(200);
    const span = recorder.span('POST /api/things/:id');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(callerTrace);
    expect(span.parentSpanContext?.spanId).toBe(callerSpan);
    expect(activeInHandler).toBe(span.spanContext().spanId);
    expect(correlationInHandler).toBe('req-42');
    expect(span.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.path': '/api/things/42',
      'http.route': '/api/things/:id',
      'http.response.status_code': 200,
    });
  });

  it('marks a server error as failed and leaves the probes untraced', async () => {
    setInstrumented(['fastify']);
    app = await appWithRoutes();
    expect((await app.inject({ method: 'GET', url: '/api/broken' })).statusCode).toBe(500);
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect(recorder.span('GET /api/broken').status.code).toBe(SpanStatusCode.ERROR);
    expect(recorder.spans().map((s) => s.name)).toEqual(['GET /api/broken']);
  });

  it('is not made unless tracing runs the fastify instrumentation', async () => {
    app = await appWithRoutes();
    await app.inject({ method: 'POST', url: '/api/things/1', payload: {} });
    expect(recorder.spans()).toEqual([]);
  });
});
