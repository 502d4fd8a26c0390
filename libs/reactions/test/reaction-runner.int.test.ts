import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  parseSubject,
  partitionFilter,
  partitionOf,
  partitionOfSubject,
  RecordedEvent,
  subjectFor,
  systemActor,
} from '@shop/contracts';
import pg from 'pg';
import { connectNats, EventStore } from '@shop/eventstore';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { ParkedReaction, ReactionParking } from '../src/reaction-parking';
import { Reaction } from '../src/reaction';
import { ReactionHosts } from '../src/reaction-hosts';
import { reactionPartitions } from '../src/reaction-partition';
import { ReactionRunner } from '../src/reaction-runner';

const env = testEnvironment('reactions');
let t: TestEventStore;

beforeAll(async () => {
  t = await openTestEventStore(env);
});
afterAll(async () => {
  await t.close();
});

const silent = { warn() {}, error() {} };

class MemoryParking implements ReactionParking {
  readonly entries: ParkedReaction[] = [];
  async park(entry: ParkedReaction): Promise<void> {
    if (!this.entries.some((e) => e.reaction === entry.reaction && e.sequence === entry.sequence))
      this.entries.push(entry);
  }
  async parked(reaction: string): Promise<ParkedReaction[]> {
    return this.entries.filter((e) => e.reaction === reaction).sort((a, b) => a.sequence - b.sequence);
  }
  async holds(reaction: string, subject: string): Promise<boolean> {
    return this.entries.some((e) => e.reaction === reaction && e.subject === subject);
  }
  async release(reaction: string, sequence: number): Promise<void> {
    const index = this.entries.findIndex((e) => e.reaction === reaction && e.sequence === sequence);
    if (index >= 0) this.entries.splice(index, 1);
  }
}

/** Appends `count` commits on one cart subject: an item added, then removed and so on. */
function appendHistory(cartId: string, count: number): Promise<number[]> {
  return appendMore(cartId, 0, count);
}

/** Appends `count` more such commits after the subject's commit at `last`. */
async function appendMore(cartId: string, last: number, count: number): Promise<number[]> {
  const itemId = randomUUID();
  const sequences: number[] = [];
  for (let i = 0; i < count; i++) {
    const event =
      i % 2 === 0
        ? {
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
          }
        : { type: 'ItemRemoved', data: { itemId, reason: 'removed' } };
    const result = await t.store.append('cart', cartId, [event], {
      expectedSequence: sequences.at(-1) ?? last,
      commandId: randomUUID(),
      correlationId: randomUUID(),
      causationId: null,
      actor: systemActor,
    });
    sequences.push(result.sequence);
  }
  return sequences;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await sleep(50);
  if (!condition()) throw new Error(`never happened: ${what}`);
}

/** Ends the Postgres session holding an advisory lock, as the death of its process would. */
async function terminateLockHolder(applicationName: string): Promise<void> {
  const client = new pg.Client({ connectionString: env.databaseUrl });
  await client.connect();
  try {
    await client.query(
      `SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a
         JOIN pg_locks l ON l.pid = a.pid AND l.locktype = 'advisory' AND l.granted
        WHERE a.application_name = $1`,
      [applicationName],
    );
  } finally {
    await client.end();
  }
}

function recordingReaction(name: string, handle: (event: RecordedEvent) => Promise<void>): Reaction {
  return { name, aggregate: 'cart', eventTypes: ['ItemAdded', 'ItemRemoved'], handle };
}

describe('reaction runner', () => {
  it("handles one subject's events in stream order while an earlier one fails and is retried", async () => {
    const cartId = randomUUID();
    const handled: number[] = [];
    let failures = 0;
    const runner = new ReactionRunner({
      store: t.store,
      logger: silent,
      reaction: recordingReaction(`order_${randomUUID().slice(0, 8)}`, async (event) => {
        if (event.aggregateId !== cartId) return;
        if (handled.length === 0 && failures < 2) {
          failures++;
          throw new Error('transient');
        }
        handled.push(event.sequence);
      }),
    });
    const sequences = await appendHistory(cartId, 6);
    await runner.start();
    try {
      await until(() => handled.length >= sequences.length, 'every event handled');
      expect(handled).toEqual(sequences);
    } finally {
      await runner.stop();
    }
  });

  it('keeps the order when two processes run the same reaction: one is active, the other stands by', async () => {
    const cartIds = [randomUUID(), randomUUID(), randomUUID()];
    const handled = new Map<string, number[]>(cartIds.map((id) => [id, []]));
    const failed = new Set<string>();
    const name = `pair_${randomUUID().slice(0, 8)}`;
    const runnerIn = () =>
      new ReactionRunner({
        store: t.store,
        logger: silent,
        databaseUrl: env.databaseUrl,
        reaction: recordingReaction(name, async (event) => {
          const seen = handled.get(event.aggregateId);
          if (!seen) return;
          // The first event of each subject fails once, while its later events are pending.
          if (seen.length === 0 && !failed.has(event.aggregateId)) {
            failed.add(event.aggregateId);
            throw new Error('transient');
          }
          seen.push(event.sequence);
        }),
      });
    const histories = [];
    for (const id of cartIds) histories.push(await appendHistory(id, 6));
    const runners = [runnerIn(), runnerIn()];
    await Promise.all(runners.map((r) => r.start()));
    try {
      await until(() => [...handled.values()].every((seen) => seen.length === 6), 'every event handled');
      expect(cartIds.map((id) => handled.get(id))).toEqual(histories);
    } finally {
      await Promise.all(runners.map((r) => r.stop()));
    }
  });

  it('still handles different subjects concurrently', async () => {
    const [slowCart, fastCart] = [randomUUID(), randomUUID()];
    let releaseSlow: () => void = () => undefined;
    const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));
    const handled: string[] = [];
    const runner = new ReactionRunner({
      store: t.store,
      logger: silent,
      reaction: recordingReaction(`concurrent_${randomUUID().slice(0, 8)}`, async (event) => {
        if (event.aggregateId === slowCart) await slowGate;
        if (event.aggregateId === fastCart) releaseSlow();
        if (event.aggregateId === slowCart || event.aggregateId === fastCart) handled.push(event.aggregateId);
      }),
    });
    await appendHistory(slowCart, 1);
    await appendHistory(fastCart, 1);
    await runner.start();
    try {
      // The slow subject waits for the fast one: handled one after the other, this never finishes.
      await until(() => handled.length === 2, 'both subjects handled');
      expect(handled).toEqual([fastCart, slowCart]);
    } finally {
      await runner.stop();
    }
  });

  it('acknowledges the events it does not handle without asking the parking about them', async () => {
    const cartId = randomUUID();
    const handled: number[] = [];
    const asked: string[] = [];
    const parking = new (class extends MemoryParking {
      override async holds(reaction: string, subject: string): Promise<boolean> {
        if (subject.endsWith(cartId)) asked.push(subject);
        return super.holds(reaction, subject);
      }
    })();
    // Added, removed, added, removed, added: the last is handled, so by then the removals were taken.
    const sequences = await appendHistory(cartId, 5);
    const runner = new ReactionRunner({
      store: t.store,
      logger: silent,
      parking,
      reaction: {
        name: `added_${randomUUID().slice(0, 8)}`,
        aggregate: 'cart',
        eventTypes: ['ItemAdded'],
        handle: async (event) => {
          if (event.aggregateId === cartId) handled.push(event.sequence);
        },
      },
    });
    await runner.start();
    try {
      const added = sequences.filter((_, i) => i % 2 === 0);
      await until(() => handled.length === added.length, 'every ItemAdded handled');
      expect(handled).toEqual(added);
      expect(asked).toHaveLength(added.length);
    } finally {
      await runner.stop();
    }
  });

  it('holds later events of a subject behind its parked event and replays them in order', async () => {
    const cartId = randomUUID();
    const parking = new MemoryParking();
    const handled: number[] = [];
    let healthy = false;
    const name = `parked_${randomUUID().slice(0, 8)}`;
    const sequences = await appendHistory(cartId, 3);
    const runner = new ReactionRunner({
      store: t.store,
      logger: silent,
      parking,
      maxDeliveries: 2,
      retryParkedEveryMs: 100,
      reaction: recordingReaction(name, async (event) => {
        if (event.aggregateId !== cartId) return;
        if (event.sequence === sequences[0] && !healthy) throw new Error('poison until fixed');
        handled.push(event.sequence);
      }),
    });
    await runner.start();
    try {
      await until(() => parking.entries.length === 3, 'the subject parked');
      expect(handled).toEqual([]);
      expect((await parking.parked(name)).map((e) => e.sequence)).toEqual(sequences);
      healthy = true;
      await until(() => handled.length === 3, 'parked events replayed');
      expect(handled).toEqual(sequences);
      expect(parking.entries).toEqual([]);
    } finally {
      await runner.stop();
    }
  });

  it("keeps a subject's order when the active process dies mid-message and the standby takes over", async () => {
    const cartId = randomUUID();
    const name = `failover_${randomUUID().slice(0, 8)}`;
    const handledByStandby: number[] = [];
    let enteredByDead: () => void = () => undefined;
    const deadEntered = new Promise<void>((resolve) => (enteredByDead = resolve));
    let releaseDead: () => void = () => undefined;
    const deadGate = new Promise<void>((resolve) => (releaseDead = resolve));
    // The process that dies has connections of its own, so closing them kills only it.
    const deadNc = await connectNats(env.natsUrl, `dead-${name}`);
    const deadStore = await EventStore.create(deadNc, {
      stream: t.store.stream,
      subjectPrefix: t.store.subjectPrefix,
      catalogue: t.store.catalogue,
      dataKeys: t.dataKeys,
    });
    const dead = new ReactionRunner({
      store: deadStore,
      logger: silent,
      databaseUrl: env.databaseUrl,
      reaction: recordingReaction(name, async (event) => {
        if (event.aggregateId !== cartId) return;
        enteredByDead();
        // It never finishes: the process dies here.
        await deadGate;
      }),
    });
    const standby = new ReactionRunner({
      store: t.store,
      logger: silent,
      databaseUrl: env.databaseUrl,
      reaction: recordingReaction(name, async (event) => {
        if (event.aggregateId === cartId) handledByStandby.push(event.sequence);
      }),
    });
    const before = await appendHistory(cartId, 3);
    await dead.start();
    try {
      await deadEntered;
      await standby.start();
      await deadNc.close();
      await terminateLockHolder(`lock:reaction:${name}`);
      const after = await appendMore(cartId, before.at(-1)!, 2);
      await until(() => handledByStandby.length >= 2, 'the standby handled events of the subject');
      expect(handledByStandby.slice(0, 2)).toEqual(before.slice(0, 2));
      await until(() => handledByStandby.length >= 5, 'every event of the subject handled');
      expect(handledByStandby).toEqual([...before, ...after]);
    } finally {
      releaseDead();
      await dead.stop().catch(() => undefined);
      await standby.stop();
    }
  });

  it('splits a reaction over partitions: each runner handles the aggregates of its own, in order', async () => {
    const name = `split_${randomUUID().slice(0, 8)}`;
    const cartIds = Array.from({ length: 8 }, () => randomUUID());
    const handled = new Map<string, { partition: number; sequence: number }[]>(cartIds.map((id) => [id, []]));
    const runners = reactionPartitions(4).map(
      (partition) =>
        new ReactionRunner({
          store: t.store,
          logger: silent,
          partition,
          reaction: recordingReaction(name, async (event) => {
            handled.get(event.aggregateId)?.push({ partition: partition.index, sequence: event.sequence });
          }),
        }),
    );
    const histories = [];
    for (const id of cartIds) histories.push(await appendHistory(id, 3));
    await Promise.all(runners.map((r) => r.start()));
    try {
      await until(() => [...handled.values()].every((seen) => seen.length === 3), 'every event handled');
      for (const [i, id] of cartIds.entries()) {
        const seen = handled.get(id)!;
        expect(seen.map((h) => h.sequence)).toEqual(histories[i]);
        expect(new Set(seen.map((h) => h.partition))).toEqual(new Set([partitionOf(id, 4)]));
      }
      const consumers = await t.store.jsm.consumers.info(
        t.store.stream,
        t.store.consumerName(`reaction_${name}_p2of4`),
      );
      expect(consumers.config.filter_subject).toBe(partitionFilter(t.store.subjectPrefix, 'cart', 2, 4));
      // Each partition's consumer was delivered the cart messages of its partition, each once.
      const own = [0, 0, 0, 0];
      for await (const raw of t.store.readRaw()) {
        if (parseSubject(t.store.subjectPrefix, raw.subject).aggregate === 'cart')
          own[partitionOfSubject(t.store.subjectPrefix, raw.subject, 4)]!++;
      }
      const delivered = await Promise.all(
        [0, 1, 2, 3].map(
          async (index) =>
            (
              await t.store.jsm.consumers.info(
                t.store.stream,
                t.store.consumerName(`reaction_${name}_p${index}of4`),
              )
            ).delivered.consumer_seq,
        ),
      );
      expect(delivered).toEqual(own);
    } finally {
      await Promise.all(runners.map((r) => r.stop()));
    }
  });

  it("retries only its own partition's parked events", async () => {
    const name = `parkedsplit_${randomUUID().slice(0, 8)}`;
    const mine = randomUUID();
    const partition = { index: partitionOf(mine, 2), count: 2 };
    let theirs = randomUUID();
    while (partitionOf(theirs, 2) === partition.index) theirs = randomUUID();
    const parking = new MemoryParking();
    const handled: string[] = [];
    for (const cartId of [mine, theirs]) {
      const [sequence] = await appendHistory(cartId, 1);
      await parking.park({
        reaction: name,
        sequence: sequence!,
        subject: subjectFor(t.store.subjectPrefix, 'cart', cartId),
        error: 'poison until fixed',
      });
    }
    const runner = new ReactionRunner({
      store: t.store,
      logger: silent,
      parking,
      partition,
      retryParkedEveryMs: 100,
      reaction: recordingReaction(name, async (event) => {
        if (event.aggregateId === mine || event.aggregateId === theirs) handled.push(event.aggregateId);
      }),
    });
    await runner.start();
    try {
      await until(() => parking.entries.length === 1, 'its own parked event released');
      await sleep(300);
      // The new consumer also delivers both stored events: its own may come once more after the
      // retry released it (handlers are idempotent); the other partition's never comes.
      expect(new Set(handled)).toEqual(new Set([mine]));
      expect(parking.entries.map((e) => e.subject)).toEqual([
        subjectFor(t.store.subjectPrefix, 'cart', theirs),
      ]);
    } finally {
      await runner.stop();
    }
  });

  it('starts the consumers of a new partition count after what the old count had handled', async () => {
    const name = `resplit_${randomUUID().slice(0, 8)}`;
    const cartIds = [randomUUID(), randomUUID(), randomUUID()];
    const handled = new Map<string, number[]>(cartIds.map((id) => [id, []]));
    const runnerOf = (partition: { index: number; count: number }) =>
      new ReactionRunner({
        store: t.store,
        logger: silent,
        partition,
        reaction: recordingReaction(name, async (event) => {
          handled.get(event.aggregateId)?.push(event.sequence);
        }),
      });
    const before: number[][] = [];
    for (const id of cartIds) before.push(await appendHistory(id, 2));
    const unsplit = runnerOf({ index: 0, count: 1 });
    await unsplit.start();
    await until(
      () => [...handled.values()].every((seen) => seen.length === 2),
      'the unsplit runner handled all',
    );
    await unsplit.stop();

    const after: number[][] = [];
    for (const [i, id] of cartIds.entries()) after.push(await appendMore(id, before[i]!.at(-1)!, 2));
    const split = reactionPartitions(2).map(runnerOf);
    await Promise.all(split.map((r) => r.start()));
    try {
      await until(
        () => [...handled.values()].every((seen) => seen.length >= 4),
        'the split runners handled the rest',
      );
      await sleep(300);
      expect(cartIds.map((id) => handled.get(id))).toEqual(
        cartIds.map((_, i) => [...before[i]!, ...after[i]!]),
      );
    } finally {
      await Promise.all(split.map((r) => r.stop()));
    }
  });

  it('spreads the partitions over the processes: a process that joins gets its share, events keep their order', async () => {
    const name = `spread_${randomUUID().slice(0, 8)}`;
    const cartIds = Array.from({ length: 8 }, () => randomUUID());
    const handled = new Map<string, number[]>(cartIds.map((id) => [id, []]));
    const processOf = (hosts: ReactionHosts) =>
      reactionPartitions(4).map(
        (partition) =>
          new ReactionRunner({
            store: t.store,
            logger: silent,
            databaseUrl: env.databaseUrl,
            partition,
            hosts,
            reaction: recordingReaction(name, async (event) => {
              const seen = handled.get(event.aggregateId);
              if (seen && !seen.includes(event.sequence)) seen.push(event.sequence);
            }),
          }),
      );
    const [firstHosts, secondHosts] = [
      new ReactionHosts(env.databaseUrl, t.store.stream),
      new ReactionHosts(env.databaseUrl, t.store.stream),
    ];
    const first = processOf(firstHosts);
    const second = processOf(secondHosts);
    const histories = new Map<string, number[]>();
    for (const id of cartIds) histories.set(id, await appendHistory(id, 2));
    await Promise.all(first.map((r) => r.start()));
    try {
      await until(() => firstHosts.held(name).length === 4, 'the first process holds every partition');
      await Promise.all(second.map((r) => r.start()));
      for (const id of cartIds)
        histories.get(id)!.push(...(await appendMore(id, histories.get(id)!.at(-1)!, 2)));
      await until(() => secondHosts.held(name).length === 2, 'the second process holds its share');
      expect(firstHosts.held(name)).toHaveLength(2);
      expect([...firstHosts.held(name), ...secondHosts.held(name)].sort()).toEqual([0, 1, 2, 3]);
      for (const id of cartIds)
        histories.get(id)!.push(...(await appendMore(id, histories.get(id)!.at(-1)!, 2)));
      await until(() => [...handled.values()].every((seen) => seen.length === 6), 'every event handled');
      expect(handled).toEqual(histories);
    } finally {
      await Promise.all([...first, ...second].map((r) => r.stop()));
      await Promise.all([firstHosts.close(), secondHosts.close()]);
    }
  });
});
