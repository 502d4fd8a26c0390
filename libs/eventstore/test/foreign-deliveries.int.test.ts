import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliverPolicy, JetStreamManager, NatsConnection } from 'nats';
import { aggregateWildcard, eventCatalogue, systemActor } from '@shop/contracts';
import { ForeignPusher, openTestEventStore, pollUntil, testEnvironment, TestEventStore } from '@shop/testing';
import { connectNats } from '../src/nats-connection';
import { EventStore, RawCommit } from '../src/event-store';
import { FollowedCommit, followCommits } from '../src/commit-follower';
import { DeliveryReceiver, foreignDeliveriesDropped } from '../src/own-deliveries';

/**
 * Another connection pushing stored messages onto a reader's inbox, as any user that may make the
 * ephemeral read consumer can on nats-server 2.9 (it does not check a deliver subject against its
 * creator's rights): the reads and the follower take only what their own consumer delivers.
 */
const env = testEnvironment('foreigndel');
let t: TestEventStore;
let attacker: NatsConnection;
let foreign: ForeignPusher;

beforeAll(async () => {
  t = await openTestEventStore(env);
  attacker = await connectNats(env.natsUrl, `attacker-${env.id}`);
  foreign = await ForeignPusher.on(attacker, env.stream);
});
afterAll(async () => {
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
const register = async (store: EventStore, userId: string) =>
  (
    await store.append(
      'user',
      userId,
      [{ type: 'UserRegistered', data: { providerSubject: `sub-${userId}`, email: null } }],
      meta(0),
    )
  ).sequence;
const rename = async (store: EventStore, userId: string, after: number, round: number) =>
  (
    await store.append(
      'user',
      userId,
      [{ type: 'DisplayNameSet', data: { displayName: `name ${round}` } }],
      meta(after),
    )
  ).sequence;
/** Commits on other subjects (carts): their sequences, in order. */
async function cartNoise(count: number): Promise<number[]> {
  const sequences: number[] = [];
  for (let i = 0; i < count; i++) {
    const cartId = randomUUID();
    const result = await t.store.append(
      'cart',
      cartId,
      [{ type: 'ItemRemoved', data: { itemId: randomUUID(), reason: 'removed' } }],
      meta(0),
    );
    sequences.push(result.sequence);
  }
  return sequences;
}

async function collect(reads: AsyncIterable<RawCommit>): Promise<RawCommit[]> {
  const got: RawCommit[] = [];
  for await (const raw of reads) got.push(raw);
  return got;
}

const dropped = (receiver: DeliveryReceiver) => foreignDeliveriesDropped().get(receiver) ?? 0;

/** `nc` for an event store, with the deliver subject of each read consumer shown to `observe` before it is created. */
function observedConnection(nc: NatsConnection, observe: (deliverSubject: string) => Promise<void>) {
  const watch = (jsm: JetStreamManager): JetStreamManager => {
    const add = jsm.consumers.add.bind(jsm.consumers);
    jsm.consumers.add = async (stream, config) => {
      if (config.deliver_subject) await observe(config.deliver_subject);
      return add(stream, config);
    };
    return jsm;
  };
  return new Proxy(nc, {
    get(target, property) {
      if (property === 'jetstreamManager')
        return async (...args: Parameters<NatsConnection['jetstreamManager']>) =>
          watch(await target.jetstreamManager(...args));
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const readerOptions = (logger?: { warn(obj: object, msg: string): void }) => ({
  stream: env.stream,
  subjectPrefix: env.subjectPrefix,
  catalogue: eventCatalogue,
  dataKeys: t.dataKeys,
  ...(logger ? { logger } : {}),
});

describe('messages another connection pushes onto a reader’s inbox', () => {
  it('leave a filtered read exactly what its own consumer delivers: every match in its range, no other subject, none twice', async () => {
    const warnings: { obj: Record<string, unknown>; msg: string }[] = [];
    const reader = await EventStore.create(
      t.nc,
      readerOptions({ warn: (obj, msg) => warnings.push({ obj: obj as Record<string, unknown>, msg }) }),
    );
    const userId = randomUUID();
    const subject = t.store.subject('user', userId);
    const genuine = [await register(t.store, userId)];
    await cartNoise(3);
    genuine.push(await rename(t.store, userId, genuine[0]!, 1));
    await cartNoise(2);
    // A filtered read ends with its match at its end: it waits there for the commit after three
    // more of other subjects.
    const othersInRange = 3;
    const end = (await t.store.lastStreamSequence()) + othersInRange + 1;
    const droppedBefore = dropped('read');
    const reading = collect(reader.readRaw(genuine[0]!, end, subject));

    // The attacker finds the read's consumer in the list, and its deliver subject there.
    const [target] = await pollUntil(
      () => foreign.listed(),
      (all) => all.some((c) => c.config.filter_subject === subject && c.config.deliver_subject),
      "the read's consumer listed",
    ).then((all) => all.filter((c) => c.config.filter_subject === subject));
    const inbox = target!.config.deliver_subject!;
    // Every subject, every sequence, onto the reader's inbox, the ones stored from now on too.
    const flood = await foreign.pushOnto(inbox);
    const later = await cartNoise(othersInRange);
    await foreign.deliveredThrough(flood, later.at(-1)!);
    // The read's own subject too, from another consumer.
    const sameSubject = await foreign.pushOnto(inbox, { filter_subject: subject });
    await foreign.deliveredThrough(sameSubject, genuine.at(-1)!);

    genuine.push(await rename(t.store, userId, genuine.at(-1)!, 2));
    expect(genuine.at(-1)).toBe(end);
    const read = await reading;
    expect(read.map((r) => r.sequence)).toEqual(genuine);
    expect(read.map((r) => r.subject)).toEqual(genuine.map(() => subject));
    // Dropped unacknowledged, counted, and one line logged for the flood.
    for (const name of [flood, sameSubject]) expect((await foreign.info(name)).ack_floor.stream_seq).toBe(0);
    expect(dropped('read') - droppedBefore).toBeGreaterThan(later.length);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.obj).toMatchObject({ receiver: 'read', stream: env.stream, filter: subject });
  });

  it('leave an aggregate loaded through a read consumer with exactly its own commits, its last ones included', async () => {
    const userId = randomUUID();
    const subject = t.store.subject('user', userId);
    const sequences = [await register(t.store, userId)];
    // Past the 32 commits a load reads one by one: the rest comes through a read consumer.
    // Other subjects' commits in between, some among the ones read through the consumer.
    for (let round = 1; round < 40; round++) {
      if (round % 10 === 0 || round === 35) await cartNoise(1);
      sequences.push(await rename(t.store, userId, sequences.at(-1)!, round));
    }
    // Later sequences than the aggregate's last commit, on other subjects.
    const later = await cartNoise(5);
    const floods: string[] = [];
    let attacked = false;
    // The inbox is shown to the test before the read's consumer exists: the foreign messages are
    // on their way before the first message of its own.
    const reader = await EventStore.create(
      observedConnection(t.nc, async (inbox) => {
        if (attacked) return;
        attacked = true;
        // First the later sequences only, then every subject from the start, then the aggregate's own.
        floods.push(
          await foreign.pushOnto(inbox, {
            deliver_policy: DeliverPolicy.StartSequence,
            opt_start_seq: later[0]!,
          }),
        );
        await foreign.deliveredThrough(floods[0]!, later.at(-1)!);
        floods.push(await foreign.pushOnto(inbox));
        await foreign.deliveredThrough(floods[1]!, later.at(-1)!);
        floods.push(await foreign.pushOnto(inbox, { filter_subject: subject }));
        await foreign.deliveredThrough(floods[2]!, sequences.at(-1)!);
      }),
      readerOptions(),
    );
    const droppedBefore = dropped('read');
    const loaded = await reader.load('user', userId);
    expect(attacked).toBe(true);
    expect(loaded.version).toBe(sequences.at(-1));
    expect(loaded.events.map((e) => [e.sequence, e.subject, e.type])).toEqual(
      sequences.map((sequence, i) => [sequence, subject, i === 0 ? 'UserRegistered' : 'DisplayNameSet']),
    );
    expect(dropped('read') - droppedBefore).toBeGreaterThan(0);
    for (const name of floods) expect((await foreign.info(name)).ack_floor.stream_seq).toBe(0);
  });

  it('leave a commit follower hearing exactly the commits of its subjects, each once', async () => {
    const reader = await EventStore.create(t.nc, readerOptions({ warn() {} }));
    const filter = aggregateWildcard(env.subjectPrefix, 'user');
    const heard: FollowedCommit[] = [];
    const states: string[] = [];
    const follower = followCommits(reader, filter, {
      commit: (c) => heard.push(c),
      following: () => states.push('following'),
      interrupted: () => states.push('interrupted'),
    });
    try {
      await pollUntil(
        () => states,
        (s) => s.at(-1) === 'following',
        'following',
      );
      const [target] = (await foreign.listed()).filter(
        (c) => c.config.filter_subject === filter && c.config.headers_only && c.config.deliver_subject,
      );
      const droppedBefore = dropped('follower');
      // Every subject, every sequence, from the start and as they are stored.
      const flood = await foreign.pushOnto(target!.config.deliver_subject!);
      const expected: FollowedCommit[] = [];
      for (let i = 0; i < 3; i++) {
        await cartNoise(2);
        const userId = randomUUID();
        expected.push({
          subject: t.store.subject('user', userId),
          sequence: await register(t.store, userId),
        });
      }
      const end = await t.store.lastStreamSequence();
      // Every message the flood sent has reached the follower and been dropped.
      await pollUntil(
        async () => [await foreign.info(flood), dropped('follower') - droppedBefore] as const,
        ([info, count]) =>
          info.delivered.stream_seq >= end && info.num_pending === 0 && count === info.delivered.consumer_seq,
        'the flood dropped',
      );
      await pollUntil(
        () => heard.length,
        (n) => n >= 3,
        'three commits heard',
      );
      expect(heard).toEqual(expected);
      expect(states).toEqual(['following']);
      expect((await foreign.info(flood)).ack_floor.stream_seq).toBe(0);
    } finally {
      await follower.stop();
    }
  });
});
