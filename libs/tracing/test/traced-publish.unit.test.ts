import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import type { MsgHdrs } from 'nats';
import { describe, expect, it } from 'vitest';
import { recordSpans } from '@shop/testing';
import { tracedPublish } from '../src';

const publishCapturing = async (subject: string) => {
  let sent: MsgHdrs | undefined;
  await tracedPublish(
    subject,
    'command-1',
    async (headers) => {
      sent = headers;
      return { seq: 9 };
    },
    (ack) => ack.seq,
  );
  return sent!;
};

describe('the trace context of an appended commit', () => {
  it('is not sent while tracing is off', async () => {
    const headers = await publishCapturing('shop.cart.c1');
    expect(headers.has('traceparent')).toBe(false);
  });

  it('is the W3C traceparent of the publish span while tracing is on', async () => {
    const recorder = recordSpans();
    try {
      const headers = await publishCapturing('shop.cart.c1');
      const publish = recorder.span('publish shop.cart.*');
      const { traceId, spanId } = publish.spanContext();
      expect(headers.get('traceparent')).toBe(`00-${traceId}-${spanId}-01`);
      expect(publish.attributes).toMatchObject({
        'messaging.destination.name': 'shop.cart.c1',
        'messaging.destination.template': 'shop.cart.*',
        'messaging.message.id': 'command-1',
        'messaging.nats.stream.sequence': 9,
      });
    } finally {
      await recorder.stop();
    }
  });

  it('is the context of a request the sampler left out, flagged so, with no span of its own', async () => {
    const recorder = recordSpans();
    try {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const requestSpanId = '00f067aa0ba902b7';
      const unsampled = trace.setSpanContext(ROOT_CONTEXT, {
        traceId,
        spanId: requestSpanId,
        traceFlags: TraceFlags.NONE,
      });
      const headers = await context.with(unsampled, () => publishCapturing('shop.cart.c1'));
      expect(headers.get('traceparent')).toBe(`00-${traceId}-${requestSpanId}-00`);
      expect(recorder.spans()).toEqual([]);
    } finally {
      await recorder.stop();
    }
  });
});
