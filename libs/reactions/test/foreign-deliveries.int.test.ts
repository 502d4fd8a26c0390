import { randomUUID } from 'node:crypto';
import { DeliverPolicy, NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSubject, RecordedEvent, systemActor } from '@shop/contracts';
import { connectNats, foreignDeliveriesDropped } from '@shop/eventstore';
import {
  ForeignPusher,
  openTestEventStore,
  pollUntil,
  PullInboxes,
  testEnvironment,
  TestEventStore,
} from '@shop/testing';
import { Reaction } from '../src/reaction';
import { reactionConsumerName } from '../src/reaction-partition';
import { ReactionRunner } from '../src/reaction-runner';

/**
 * Stored messages pushed onto a reaction runner's pull inbox by consumers it did not create (any
 * reader may make one on nats-server 2.9): the runner handles none of them and skips nothing.
 */
const env = testEnvironment('reactforeign');
let t: TestEventStore;
let attacker: NatsConnection;
let foreign: ForeignPusher;
let pulls: PullInboxes;

beforeAll(async () => {
  t = await openTestEventStore(env);
  attacker = await connectNats(env.natsUrl, `attacker-${env.id}`);
  foreign = await ForeignPusher.on(attacker, env.stream);
  pulls = PullInboxes.watch(attacker, env.stream);
});
afterAll(async () => {
  pulls?.stop();
  await foreign?.removeAll();
  await attacker?.close();
  await t?.close();
});

const meta = (expectedSequence: number) => ({
  commandId: randomUUID(),
  correlationId: randomUUID(),
  actor: systemActor,
  expectedSequence,
});

/** A few carts of two commits each (the reaction's aggregate) and users between them (another's). */
async function history(carts: number): Promise<void> {
  for (let i = 0; i < carts; i++) {
    const cartId = randomUUID();
    const itemId = randomUUID();
    const added = await t.store.append(
      'cart',
      cartId,
      [
        {
          type: 'ItemAdded',
          data: {
            itemId,
            productId: `P${i}`,
            productName: 'Jacket',
            price: 100,
            image: 'https://example.com/i.jpg',
            size: 'M',
            color: 'Red',
            productUrl: 'https://example.com/p',
            retailer: 'Example',
          },
        },
      ],
      meta(0),
    );
    const userId = randomUUID();
    await t.store.append(
      'user',
      userId,
      [{ type: 'UserRegistered', data: { providerSubject: `sub-${userId}`, email: null } }],
      meta(0),
    );
    await t.store.append('cart', cartId, [{ type: 'ItemRemoved', data: { itemId, reason: 'removed' } }], {
      ...meta(added.sequence),
    });
  }
}

/** The stream's cart commits, in order. */
async function cartCommits(end: number): Promise<number[]> {
  const sequences: number[] = [];
  for await (const raw of t.store.readRaw(1, end))
    if (parseSubject(env.subjectPrefix, raw.subject).aggregate === 'cart') sequences.push(raw.sequence);
  return sequences;
}

const whole = { index: 0, count: 1 };

describe('a reaction runner given a flood of foreign messages on its pull inbox', () => {
  it('handles exactly the events its own consumer delivers, each once', async () => {
    const handled: RecordedEvent[] = [];
    const logged: { level: string; msg: string }[] = [];
    const reaction: Reaction = {
      name: 'flood',
      aggregate: 'cart',
      eventTypes: ['ItemAdded', 'ItemRemoved'],
      handle: async (event) => {
        handled.push(event);
      },
    };
    const runner = new ReactionRunner({
      store: t.store,
      reaction,
      logger: {
        warn: (_, msg) => logged.push({ level: 'warn', msg }),
        error: (_, msg) => logged.push({ level: 'error', msg }),
      },
    });
    await history(8);
    const start = await t.store.lastStreamSequence();
    const droppedBefore = foreignDeliveriesDropped().get('reaction') ?? 0;
    await runner.start();
    try {
      await pollUntil(
        () => handled.length,
        (n) => n === 16,
        'the first carts handled',
      );
      // Onto the runner's pull inbox: every stored message from the start, three times over (the
      // carts' as well as the users'), each subject's last once more, then all stored from now on.
      const inbox = await pulls.of(t.store.consumerName(reactionConsumerName(reaction.name, whole)));
      for (let i = 0; i < 3; i++) await foreign.pushOnto(inbox);
      await foreign.pushOnto(inbox, {
        deliver_policy: DeliverPolicy.LastPerSubject,
        filter_subject: `${env.subjectPrefix}.>`,
      });
      await history(8);
      const end = await t.store.lastStreamSequence();
      expect(end).toBeGreaterThan(start);
      await pollUntil(
        () => handled.length,
        (n) => n >= 32,
        'the later carts handled',
      );
      // Every foreign message sent has reached the runner (and been dropped there).
      await foreign.allDeliveredThrough(end);
      await pollUntil(
        async () =>
          [
            await foreign.totals(),
            (foreignDeliveriesDropped().get('reaction') ?? 0) - droppedBefore,
          ] as const,
        ([sent, count]) => count >= sent.delivered,
        'the flood dropped',
        3000,
      ).catch(() => undefined);
    } finally {
      await runner.stop();
    }
    const end = await t.store.lastStreamSequence();
    // Subjects are handled concurrently: each commit once, whatever the order between subjects.
    expect(handled.map((e) => e.sequence).sort((a, b) => a - b)).toEqual(await cartCommits(end));
    // Dropped, every one of them, and none acknowledged.
    const totals = await foreign.totals();
    expect(totals.delivered).toBeGreaterThan(4 * start);
    expect((foreignDeliveriesDropped().get('reaction') ?? 0) - droppedBefore).toBe(totals.delivered);
    expect(totals.acknowledged).toBe(0);
    // Its own consumer acknowledged through the end: nothing left unhandled behind a foreign message.
    const own = await t.store.jsm.consumers.info(
      env.stream,
      t.store.consumerName(reactionConsumerName(reaction.name, whole)),
    );
    expect([own.num_ack_pending, own.num_pending, own.ack_floor.stream_seq]).toEqual([
      0,
      0,
      (await cartCommits(end)).at(-1),
    ]);
    // Nothing failed, retried or let go: one line (one per 10 s) says what was dropped.
    expect(logged.length).toBeGreaterThanOrEqual(1);
    expect(logged.length).toBeLessThanOrEqual(2);
    for (const line of logged)
      expect(line).toEqual({
        level: 'warn',
        msg: "dropped messages pushed onto this process's inbox by a consumer it did not create",
      });
  }, 60_000);
});
