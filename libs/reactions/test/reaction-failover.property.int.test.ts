import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemActor } from '@shop/contracts';
import { connectNats, EventStore } from '@shop/eventstore';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { ReactionRunner } from '../src/reaction-runner';
import { ReactionHosts } from '../src/reaction-hosts';
import { reactionPartitions } from '../src/reaction-partition';

/**
 * Whatever fails and whenever the active process dies mid-message, each subject's events are
 * first handled in stream order, and every one is handled: the standby that takes over starts
 * with what the dead one held. (A takeover may handle an event again: reactions are idempotent.)
 */

const env = testEnvironment('reactfailover');
let t: TestEventStore;

beforeAll(async () => {
  t = await openTestEventStore(env);
});
afterAll(async () => {
  await t.close();
});

const silent = { warn() {}, error() {} };

async function appendItems(cartId: string, after: number, count: number): Promise<number[]> {
  const sequences: number[] = [];
  for (let i = 0; i < count; i++) {
    const { sequence } = await t.store.append(
      'cart',
      cartId,
      [{ type: 'ItemRemoved', data: { itemId: randomUUID(), reason: 'removed' } }],
      {
        expectedSequence: sequences.at(-1) ?? after,
        commandId: randomUUID(),
        correlationId: randomUUID(),
        causationId: null,
        actor: systemActor,
      },
    );
    sequences.push(sequence);
  }
  return sequences;
}

/** Ends the Postgres sessions holding advisory locks, as the death of their process would. */
async function terminateLockHolders(applicationName: string): Promise<void> {
  const client = new pg.Client({ connectionString: env.databaseUrl });
  await client.connect();
  try {
    await client.query(
      `SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a
         JOIN pg_locks l ON l.pid = a.pid AND l.locktype = 'advisory' AND l.granted
        WHERE a.application_name LIKE $1`,
      [applicationName],
    );
  } finally {
    await client.end();
  }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600 && !condition(); i++) await sleep(50);
  if (!condition()) throw new Error(`never happened: ${what}`);
}

/** Each subject's sequences in the order they were first handled. */
function firstHandlings(handled: { cartId: string; sequence: number }[]): Map<string, number[]> {
  const seen = new Map<string, number[]>();
  for (const { cartId, sequence } of handled) {
    const own = seen.get(cartId) ?? [];
    if (!own.includes(sequence)) own.push(sequence);
    seen.set(cartId, own);
  }
  return seen;
}

const scenario = fc.record({
  /** Events per subject before the death, and after it. */
  subjects: fc.array(
    fc.record({ before: fc.integer({ min: 1, max: 3 }), after: fc.integer({ min: 0, max: 2 }) }),
    {
      minLength: 1,
      maxLength: 3,
    },
  ),
  /** Which handler call the active process dies in (counted over every subject). */
  diesAtCall: fc.nat({ max: 6 }),
  /** Events (by their index in the stream) whose handler fails once before it succeeds. */
  failingOnce: fc.array(fc.nat({ max: 12 }), { maxLength: 3 }),
});

/**
 * The property for a reaction split `partitions` ways: each process runs a runner per partition,
 * and the one that dies held every partition it got to before the standby started. A split
 * reaction's locks are on each process's hosts session, as in a gateway.
 */
async function failoverProperty(partitions: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(scenario, async ({ subjects, diesAtCall, failingOnce }) => {
      const name = `prop_${randomUUID().slice(0, 8)}`;
      const carts: string[] = subjects.map(() => randomUUID());
      const expected = new Map<string, number[]>();
      for (const [i, cartId] of carts.entries()) {
        expected.set(cartId, await appendItems(cartId, 0, subjects[i]!.before));
      }
      const streamOrder = [...expected.values()].flat().sort((a, b) => a - b);
      const failOnce = new Set(failingOnce.map((i) => streamOrder[i % streamOrder.length]!));
      const handled: { cartId: string; sequence: number }[] = [];
      let calls = 0;
      let died: () => void = () => undefined;
      const death = new Promise<void>((resolve) => (died = resolve));
      let releaseDead: () => void = () => undefined;
      const deadGate = new Promise<void>((resolve) => (releaseDead = resolve));

      const handle = (dies: boolean) => async (event: { aggregateId: string; sequence: number }) => {
        if (!carts.includes(event.aggregateId)) return;
        if (dies && calls++ === diesAtCall) {
          died();
          await deadGate;
          throw new Error('this process is dead');
        }
        if (failOnce.delete(event.sequence)) throw new Error('transient');
        handled.push({ cartId: event.aggregateId, sequence: event.sequence });
      };
      const hostsOf = () => (partitions > 1 ? new ReactionHosts(env.databaseUrl, t.store.stream) : undefined);
      const [deadHosts, standbyHosts] = [hostsOf(), hostsOf()];
      const runnersOn = (store: EventStore, dies: boolean, hosts: ReactionHosts | undefined) =>
        reactionPartitions(partitions).map(
          (partition) =>
            new ReactionRunner({
              store,
              logger: silent,
              databaseUrl: env.databaseUrl,
              partition,
              hosts,
              reaction: { name, aggregate: 'cart', eventTypes: ['ItemRemoved'], handle: handle(dies) },
            }),
        );
      const deadNc = await connectNats(env.natsUrl, `dead-${name}`);
      const deadStore = await EventStore.create(deadNc, {
        stream: t.store.stream,
        subjectPrefix: t.store.subjectPrefix,
        catalogue: t.store.catalogue,
        dataKeys: t.dataKeys,
      });
      const dead = runnersOn(deadStore, true, deadHosts);
      const standby = runnersOn(t.store, false, standbyHosts);
      await Promise.all(dead.map((r) => r.start()));
      try {
        // It dies in that call, or once everything was handled when there are fewer calls.
        const total = streamOrder.length;
        await Promise.race([death, until(() => handled.length >= total, 'every event handled once')]);
        await Promise.all(standby.map((r) => r.start()));
        await deadNc.close();
        // Every lock session of the reaction (the standby's too, which then takes its locks again).
        await terminateLockHolders(
          partitions > 1 ? `hosts:reaction:${t.store.stream}` : `lock:reaction:${name}%`,
        );
        for (const [i, cartId] of carts.entries()) {
          const own = expected.get(cartId)!;
          own.push(...(await appendItems(cartId, own.at(-1)!, subjects[i]!.after)));
        }
        const all = [...expected.values()].flat();
        await until(
          () => all.every((s) => handled.some((h) => h.sequence === s)),
          'every event handled after the takeover',
        );
        expect(firstHandlings(handled)).toEqual(expected);
      } finally {
        releaseDead();
        await Promise.all(dead.map((r) => r.stop().catch(() => undefined)));
        await Promise.all(standby.map((r) => r.stop()));
        await Promise.all([deadHosts?.close(), standbyHosts?.close()]);
      }
    }),
    {
      numRuns: 8,
      // The dead process, its NATS connection closed but its lock's database still reachable,
      // took the lock again and held it, consuming nothing, while the standby waited.
      examples: [[{ subjects: [{ before: 1, after: 1 }], diesAtCall: 1, failingOnce: [] }]],
    },
  );
}

describe('reaction failover', () => {
  it("keeps each subject's order and handles every event whatever fails and whenever the active process dies", async () => {
    await failoverProperty(1);
  }, 300_000);

  it('does so for a reaction split over four partitions too', async () => {
    await failoverProperty(4);
  }, 300_000);
});
