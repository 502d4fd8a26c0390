import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordSpans, type SpanRecorder } from '@shop/testing';
import type { PositionTracker } from '../src/position-tracker';
import { ReadModelPositions } from '../src/read-model-positions';

let recorder: SpanRecorder;
beforeAll(() => {
  recorder = recordSpans();
});
afterAll(() => recorder.stop());

const tracker = (readable: boolean) =>
  ({ waitFor: () => Promise.resolve(readable) }) as unknown as PositionTracker;
const readers = [
  { name: 'cart_items', aggregates: ['cart' as const] },
  { name: 'orders', aggregates: ['order' as const, 'cart' as const] },
];

describe('the read-your-writes wait in a trace', () => {
  it('is a span; a wait that times out says so in an event naming the read models behind', async () => {
    await new ReadModelPositions(tracker(false), readers, 750).waitForCommit('cart', 42);

    const span = recorder.span('read-your-writes wait');
    expect(span.attributes).toMatchObject({ 'shop.aggregate': 'cart', 'messaging.nats.stream.sequence': 42 });
    expect(span.events.map((e) => [e.name, e.attributes?.reason])).toEqual([
      ['timed out', 'cart_items, orders had not applied 42 within 750 ms'],
    ]);
  });

  it('has no event when the commit became readable in time', async () => {
    await new ReadModelPositions(tracker(true), readers, 750).waitForCommit('cart', 43);

    const span = recorder.spans().find((s) => s.attributes['messaging.nats.stream.sequence'] === 43)!;
    expect(span.events).toEqual([]);
  });
});
