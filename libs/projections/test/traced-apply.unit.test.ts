import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { headers, type JsMsg } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordSpans, type SpanRecorder } from '@shop/testing';
import { tracedApply } from '../src/traced-apply';

let recorder: SpanRecorder;
beforeAll(() => {
  recorder = recordSpans();
});
afterAll(() => recorder.stop());

/** A message as a command's append sends it: the headers carry the context of `publish`. */
function messageFrom(publish: string, seq: number): JsMsg {
  const span = trace.getTracer('test').startSpan(publish);
  span.end();
  const sent = headers();
  propagation.inject(trace.setSpan(context.active(), span), sent, { set: (h, k, v) => h.set(k, v) });
  return { seq, subject: `shop.cart.c${seq}`, headers: sent } as unknown as JsMsg;
}

describe("a projection's apply of a batch in a trace", () => {
  it("links every message's request, continues the first one's trace, and shows each parked subject as an event", async () => {
    const batch = [messageFrom('publish one', 7), messageFrom('publish two', 8)];

    await tracedApply('cart_items', 'shop.>', batch, async () => ({
      checkpoint: 8,
      applied: [],
      parked: [{ subject: 'shop.cart.c8', sequence: 8, error: 'price is negative' }],
    }));

    const [one, two] = [recorder.span('publish one'), recorder.span('publish two')];
    const apply = recorder.span('process shop.>');
    expect(apply.kind).toBe(SpanKind.CONSUMER);
    expect(apply.links.map((l) => l.context.spanId)).toEqual([
      one.spanContext().spanId,
      two.spanContext().spanId,
    ]);
    expect(apply.spanContext().traceId).toBe(one.spanContext().traceId);
    expect(apply.parentSpanContext?.spanId).toBe(one.spanContext().spanId);
    expect(apply.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.consumer.group.name': 'cart_items',
      'messaging.batch.message_count': 2,
    });
    expect(apply.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'parked',
        {
          'messaging.destination.name': 'shop.cart.c8',
          'messaging.nats.stream.sequence': 8,
          reason: 'price is negative',
        },
      ],
    ]);
  });
});
