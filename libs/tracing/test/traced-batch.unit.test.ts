import { trace } from '@opentelemetry/api';
import { headers as natsHeaders, type JsMsg } from 'nats';
import { afterEach, describe, expect, it } from 'vitest';
import { recordSpans } from '@shop/testing';
import { setInstrumented, tracedBatch } from '../src';

const traceId = '0af7651916cd43dd8448eb211c80319c';
const publisherSpanId = 'b7ad6b7169203331';

const message = (seq: number, traceparent = `00-${traceId}-${publisherSpanId}-01`): JsMsg => {
  const headers = natsHeaders();
  headers.set('traceparent', traceparent);
  return { subject: `shop.cart.c${seq}`, seq, headers } as unknown as JsMsg;
};

afterEach(() => setInstrumented([]));

describe("a projection batch's span", () => {
  it("continues the publisher's trace without making itself active when no query is traced", async () => {
    const recorder = recordSpans();
    try {
      let activeInside: unknown = 'unread';
      await tracedBatch('cart_items', 'shop.>', [message(1), message(2)], async () => {
        activeInside = trace.getActiveSpan();
      });
      const batch = recorder.span('process shop.>');
      expect(activeInside).toBeUndefined();
      expect(batch.spanContext().traceId).toBe(traceId);
      expect(batch.parentSpanContext?.spanId).toBe(publisherSpanId);
      expect(batch.links).toHaveLength(2);
      expect(batch.attributes['messaging.batch.message_count']).toBe(2);
    } finally {
      await recorder.stop();
    }
  });

  it('continues a trace the sampler kept when one it left out came first, linked to both', async () => {
    const recorder = recordSpans();
    try {
      const leftOut = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-00`;
      await tracedBatch('cart_items', 'shop.>', [message(4, leftOut), message(5)], async () => undefined);
      const batch = recorder.span('process shop.>');
      expect(batch.spanContext().traceId).toBe(traceId);
      expect(batch.parentSpanContext?.spanId).toBe(publisherSpanId);
      expect(batch.links.map((link) => link.context.traceId)).toEqual(['1'.repeat(32), traceId]);
    } finally {
      await recorder.stop();
    }
  });

  it('is the active span while the batch runs when queries are traced, so theirs are its children', async () => {
    const recorder = recordSpans();
    setInstrumented(['pg']);
    try {
      let activeInside: string | undefined;
      await tracedBatch('cart_items', 'shop.>', [message(3)], async () => {
        activeInside = trace.getActiveSpan()?.spanContext().spanId;
      });
      expect(activeInside).toBe(recorder.span('process shop.>').spanContext().spanId);
    } finally {
      await recorder.stop();
    }
  });
});
