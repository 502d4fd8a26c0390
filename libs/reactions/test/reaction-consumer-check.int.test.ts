import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AckPolicy, DeliverPolicy } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregateWildcard, partitionFilter, partitionOf, systemActor } from '@shop/contracts';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { Reaction } from '../src/reaction';
import { ReactionPartition, reactionConsumerName } from '../src/reaction-partition';
import { ReactionPositions } from '../src/reaction-positions';
import { ReactionRunner } from '../src/reaction-runner';

/**
 * A reaction runner binding to a consumer someone else changed: acknowledged past what the
 * runner handled, or with other settings. It notices, says what differs, and handles every
 * event it had not handled instead of skipping them.
 */
const env = testEnvironment('reactcheck');
let t: TestEventStore;

beforeAll(async () => {
  t = await openTestEventStore(env);
});
afterAll(async () => {
  await t.close();
});

class MemoryPositions implements ReactionPositions {
  readonly records = new Map<string, number>();
  async read(reaction: string, p: ReactionPartition): Promise<number | null> {
    return this.records.get(`${reaction}:${p.index}of${p.count}`) ?? null;
  }
  async byCount(): Promise<Map<number, number>> {
    return new Map();
  }
  async record(reaction: string, p: ReactionPartition, sequence: number): Promise<void> {
    const key = `${reaction}:${p.index}of${p.count}`;
    this.records.set(key, Math.max(this.records.get(key) ?? 0, sequence));
  }
}

interface Warning {
  entry: { differences?: string[] };
  message: string;
}

async function appendItems(cartId: string, count: number): Promise<number[]> {
  const sequences: number[] = [];
  for (let i = 0; i < count; i++) {
    const result = await t.store.append(
      'cart',
      cartId,
      [{ type: 'ItemRemoved', data: { itemId: randomUUID(), reason: 'removed' } }],
      {
        expectedSequence: sequences.at(-1) ?? (await t.store.lastSequence(t.store.subject('cart', cartId))),
        commandId: randomUUID(),
        correlationId: randomUUID(),
        causationId: null,
        actor: systemActor,
      },
    );
    sequences.push(result.sequence);
  }
  return sequences;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await sleep(50);
  if (!condition()) throw new Error(`never happened: ${what}`);
}

function setUp(partition?: ReactionPartition) {
  const name = `check_${randomUUID().slice(0, 8)}`;
  const handled: number[] = [];
  const warnings: Warning[] = [];
  const positions = new MemoryPositions();
  const reaction: Reaction = {
    name,
    aggregate: 'cart',
    eventTypes: ['ItemRemoved'],
    handle: async (event) => {
      handled.push(event.sequence);
    },
  };
  const runner = () =>
    new ReactionRunner({
      store: t.store,
      reaction,
      positions,
      partition,
      logger: { warn: (entry, message) => warnings.push({ entry, message }), error() {} },
    });
  const consumer = t.store.consumerName(reactionConsumerName(name, partition ?? { index: 0, count: 1 }));
  return { consumer, handled, warnings, positions, runner };
}

describe('a reaction runner binding to a consumer changed behind its back', () => {
  it('handles the events another party acknowledged past its record, and says so', async () => {
    const { consumer, handled, warnings, positions, runner } = setUp();
    const cartId = randomUUID();
    const first = await appendItems(cartId, 3);
    const active = runner();
    await active.start();
    await until(() => first.every((s) => handled.includes(s)), 'the first events handled');
    await active.stop();
    expect(Math.max(...positions.records.values())).toBeGreaterThanOrEqual(first.at(-1)!);

    // While the runner is down, someone pulls the next events off its consumer and acknowledges them.
    const skipped = await appendItems(cartId, 3);
    const messages = await (
      await t.store.js.consumers.get(t.store.stream, consumer)
    ).fetch({ max_messages: 3 });
    for await (const message of messages) message.ack();
    await sleep(200);
    const info = await t.store.jsm.consumers.info(t.store.stream, consumer);
    expect(info.ack_floor.stream_seq).toBeGreaterThanOrEqual(skipped.at(-1)!);

    const next = runner();
    await next.start();
    await until(() => skipped.every((s) => handled.includes(s)), 'the skipped events handled');
    await next.stop();
    expect(warnings.flatMap((w) => w.entry.differences ?? [])).toContainEqual(
      expect.stringMatching(/^acknowledged through \d+, past this runner's record \d+$/),
    );
  });

  it('re-creates a consumer whose settings were changed, naming each difference, and misses nothing', async () => {
    const { consumer, handled, warnings, runner } = setUp();
    const cartId = randomUUID();
    const first = await appendItems(cartId, 2);
    const active = runner();
    await active.start();
    await until(() => first.every((s) => handled.includes(s)), 'the first events handled');
    await active.stop();

    // Replaced by one that delivers only headers, from now on, to a push subject.
    await t.store.jsm.consumers.delete(t.store.stream, consumer);
    await t.store.jsm.consumers.add(t.store.stream, {
      durable_name: consumer,
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.New,
      deliver_subject: `elsewhere.${randomUUID()}`,
      headers_only: true,
    });
    const later = await appendItems(cartId, 2);

    const next = runner();
    await next.start();
    await until(() => later.every((s) => handled.includes(s)), 'the later events handled');
    await next.stop();
    const differences = warnings.flatMap((w) => w.entry.differences ?? []);
    for (const setting of ['ack_policy', 'deliver_subject', 'headers_only'])
      expect(differences).toContainEqual(expect.stringMatching(new RegExp(`^${setting}: `)));
    const info = await t.store.jsm.consumers.info(t.store.stream, consumer);
    expect([info.config.ack_policy, info.config.deliver_subject, info.config.headers_only ?? false]).toEqual([
      AckPolicy.Explicit,
      undefined,
      false,
    ]);
  });

  it("re-creates a partition's consumer of the whole aggregate (made before the partitioned subjects) from its record, missing none of its events", async () => {
    let cartId = randomUUID();
    while (partitionOf(cartId, 2) !== 1) cartId = randomUUID();
    const { consumer, handled, warnings, runner } = setUp({ index: 1, count: 2 });
    const first = await appendItems(cartId, 2);
    const active = runner();
    await active.start();
    await until(() => first.every((s) => handled.includes(s)), 'the first events handled');
    await active.stop();

    // As a runner of the previous layout made it: every cart subject, delivering from the end.
    const info = await t.store.jsm.consumers.info(t.store.stream, consumer);
    await t.store.jsm.consumers.delete(t.store.stream, consumer);
    await t.store.jsm.consumers.add(t.store.stream, {
      ...info.config,
      filter_subject: aggregateWildcard(t.store.subjectPrefix, 'cart'),
      deliver_policy: DeliverPolicy.New,
      opt_start_seq: undefined,
    });
    const later = await appendItems(cartId, 2);

    const next = runner();
    await next.start();
    await until(() => later.every((s) => handled.includes(s)), 'the later events handled');
    await next.stop();
    // Nothing skipped; what the recreated consumer delivers again before its record is a repeat.
    const ours = new Set([...first, ...later]);
    expect([...new Set(handled.filter((s) => ours.has(s)))]).toEqual([...first, ...later]);
    expect(warnings.flatMap((w) => w.entry.differences ?? [])).toContainEqual(
      expect.stringMatching(/^filter_subject: /),
    );
    const recreated = await t.store.jsm.consumers.info(t.store.stream, consumer);
    expect(recreated.config.filter_subject).toBe(partitionFilter(t.store.subjectPrefix, 'cart', 1, 2));
  });
});
