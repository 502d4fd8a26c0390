import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { SpanKind } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subjectFor, systemActor } from '@shop/contracts';
import { inSpan } from '@shop/tracing';
import {
  openTestEventStore,
  recordSpans,
  testEnvironment,
  type SpanRecorder,
  type TestEventStore,
} from '@shop/testing';
import type { ParkedReaction, ReactionParking } from '../src/reaction-parking';
import { ReactionRunner } from '../src/reaction-runner';
import { UnprocessableEvent } from '../src/unprocessable-event';

const env = testEnvironment('reactiontrace');
let t: TestEventStore;
let recorder: SpanRecorder;

beforeAll(async () => {
  recorder = recordSpans();
  t = await openTestEventStore(env);
});
afterAll(async () => {
  await t.close();
  await recorder.stop();
});

const parking: ReactionParking & { entries: ParkedReaction[] } = {
  entries: [],
  async park(entry) {
    this.entries.push(entry);
  },
  parked: async () => [],
  holds: async () => false,
  release: async () => undefined,
};

describe('a reaction in the trace of the command whose event it handles', () => {
  it("processes the message as a child of the append's publish span, a retry and the parking as events with the reason", async () => {
    const cartId = randomUUID();
    await inSpan('POST /api/cart', {}, () =>
      t.store.append(
        'cart',
        cartId,
        [{ type: 'ItemRemoved', data: { itemId: randomUUID(), reason: 'removed' } }],
        {
          expectedSequence: 0,
          commandId: randomUUID(),
          correlationId: randomUUID(),
          causationId: null,
          actor: systemActor,
        },
      ),
    );
    let attempts = 0;
    const runner = new ReactionRunner({
      store: t.store,
      logger: { warn() {}, error() {} },
      parking,
      reaction: {
        name: `traced_${randomUUID().slice(0, 8)}`,
        aggregate: 'cart',
        eventTypes: ['ItemRemoved'],
        async handle(event) {
          if (event.aggregateId !== cartId) return;
          attempts++;
          if (attempts === 1) throw new Error('provider busy');
          throw new UnprocessableEvent('no such cart at the provider');
        },
      },
    });
    await runner.start();
    try {
      for (let i = 0; i < 200 && parking.entries.length === 0; i++) await sleep(50);
    } finally {
      await runner.stop();
    }

    const request = recorder.span('POST /api/cart');
    const publish = recorder.span(`publish ${t.store.subjectPrefix}.cart.*`);
    expect(publish.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    const process = recorder
      .spans()
      .find(
        (s) =>
          s.name === `process ${t.store.subjectPrefix}.cart.*` &&
          s.attributes['messaging.destination.name'] === subjectFor(t.store.subjectPrefix, 'cart', cartId),
      )!;
    expect(process.kind).toBe(SpanKind.CONSUMER);
    expect(process.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(process.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
    expect(process.attributes['messaging.nats.stream.sequence']).toBe(
      publish.attributes['messaging.nats.stream.sequence'],
    );
    expect(process.events.map((e) => [e.name, e.attributes?.reason])).toEqual([
      ['retry', 'provider busy'],
      ['parked', 'no such cart at the provider'],
    ]);
  });

  it('makes no span for a message it acknowledges unread (none of its events is for the reaction)', async () => {
    const cartId = randomUUID();
    const append = (sequence: number, type: 'ItemRemoved' | 'ItemCheckoutReleased') =>
      t.store.append(
        'cart',
        cartId,
        [
          type === 'ItemRemoved'
            ? { type, data: { itemId: randomUUID(), reason: 'removed' } }
            : { type, data: { itemId: randomUUID(), orderId: randomUUID(), reason: 'OrderCancelled' } },
        ],
        {
          expectedSequence: sequence,
          commandId: randomUUID(),
          correlationId: randomUUID(),
          causationId: null,
          actor: systemActor,
        },
      );
    const ignored = await append(0, 'ItemCheckoutReleased');
    const handled = await append(ignored.sequence, 'ItemRemoved');
    const seen: number[] = [];
    const runner = new ReactionRunner({
      store: t.store,
      logger: { warn() {}, error() {} },
      reaction: {
        name: `quiet_${randomUUID().slice(0, 8)}`,
        aggregate: 'cart',
        eventTypes: ['ItemRemoved'],
        async handle(event) {
          if (event.aggregateId === cartId) seen.push(event.sequence);
        },
      },
    });
    await runner.start();
    try {
      for (let i = 0; i < 200 && seen.length === 0; i++) await sleep(50);
    } finally {
      await runner.stop();
    }
    const processed = recorder
      .spans()
      .filter(
        (s) =>
          s.attributes['messaging.destination.name'] === subjectFor(t.store.subjectPrefix, 'cart', cartId),
      )
      .filter((s) => s.kind === SpanKind.CONSUMER)
      .map((s) => s.attributes['messaging.nats.stream.sequence']);
    expect(seen).toEqual([handled.sequence]);
    expect(processed).toEqual([handled.sequence]);
  });
});
