import { SpanKind } from '@opentelemetry/api';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordSpans, testEnvironment, type SpanRecorder } from '@shop/testing';
import { inSpan, tracedReply, tracedRequest } from '../src';

const env = testEnvironment('requestreplytrace');
let recorder: SpanRecorder;
let nc: NatsConnection;

beforeAll(async () => {
  recorder = recordSpans();
  nc = await connect({ servers: env.natsUrl.split(','), name: 'request-reply-trace' });
});
afterAll(async () => {
  await nc.drain();
  await recorder.stop();
});

describe('a NATS request-reply in a trace', () => {
  it("answers under a span continuing the requester's trace from the request's headers", async () => {
    const subject = `${env.subjectPrefix}.search.products`;
    const subscription = nc.subscribe(subject, {
      callback: (_error, message) => {
        void tracedReply(subject, message.headers, async () => message.respond(new Uint8Array()));
      },
    });
    await nc.flush();

    await inSpan('GET /api/chat', {}, () =>
      tracedRequest(subject, (headers) => nc.request(subject, new Uint8Array(), { headers, timeout: 5000 })),
    );
    subscription.unsubscribe();

    const request = recorder.span('GET /api/chat');
    const send = recorder.span(`send ${subject}`);
    const reply = recorder.span(`process ${subject}`);
    expect(send.kind).toBe(SpanKind.CLIENT);
    expect(send.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(reply.kind).toBe(SpanKind.SERVER);
    expect(reply.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(reply.parentSpanContext?.spanId).toBe(send.spanContext().spanId);
    expect(reply.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': subject,
    });
  });
});
