import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordedEvent, systemActor } from '@shop/contracts';
import {
  openTestEventStore,
  startTcpFreezeProxy,
  TcpFreezeProxy,
  testEnvironment,
  TestEventStore,
} from '@shop/testing';
import { LockCheck, LockTiming } from '../src/lock-session';
import { ReactionRunner } from '../src/reaction-runner';

/**
 * A reaction's active runner whose path to Postgres freezes: it stops before the standby starts
 * (no effect of the two overlaps), and the subject's events are still first handled in stream
 * order across the handover.
 */

const env = testEnvironment('reactfrozen');
let t: TestEventStore;
let proxy: TcpFreezeProxy;

beforeAll(async () => {
  t = await openTestEventStore(env);
  const target = new URL(env.databaseUrl);
  proxy = await startTcpFreezeProxy(target.hostname, Number(target.port || 5432));
});
afterAll(async () => {
  await proxy.close();
  await t.close();
});

const silent = { warn() {}, error() {} };
const timing: LockTiming = { heartbeatMs: 50, leaseMs: 300, longestEffectMs: 150 };

interface Effect {
  who: 'A' | 'B';
  sequence: number;
  start: number;
  end: number;
}

async function appendRemovals(cartId: string, after: number, count: number): Promise<number[]> {
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

describe('a reaction runner whose lock path freezes', () => {
  it('stops before the standby acts, and the subject keeps its order', async () => {
    const name = `frozen_${randomUUID().slice(0, 8)}`;
    const cartId = randomUUID();
    const effects: Effect[] = [];
    const runner = (who: 'A' | 'B', databaseUrl: string) =>
      new ReactionRunner({
        store: t.store,
        logger: silent,
        databaseUrl,
        lockTiming: timing,
        reaction: {
          name,
          aggregate: 'cart',
          eventTypes: ['ItemRemoved'],
          handle: async (event: RecordedEvent, lock: LockCheck) => {
            if (event.aggregateId !== cartId) return;
            lock.assertHeld();
            const effect: Effect = { who, sequence: event.sequence, start: performance.now(), end: Infinity };
            effects.push(effect);
            await sleep(5);
            effect.end = performance.now();
          },
        },
      });
    const viaProxy = new URL(env.databaseUrl);
    viaProxy.hostname = proxy.host;
    viaProxy.port = String(proxy.port);
    const a = runner('A', viaProxy.toString());
    const b = runner('B', env.databaseUrl);
    const before = await appendRemovals(cartId, 0, 3);
    await a.start();
    try {
      await expect.poll(() => effects.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
      await b.start();
      proxy.freeze();
      // Events keep coming: A handles them while its lease lasts, B once it has taken over.
      const after: number[] = [];
      const deadline = performance.now() + 30_000;
      while (!effects.some((e) => e.who === 'B') && performance.now() < deadline) {
        after.push(...(await appendRemovals(cartId, after.at(-1) ?? before.at(-1)!, 1)));
        await sleep(25);
      }
      after.push(...(await appendRemovals(cartId, after.at(-1)!, 2)));
      await expect
        .poll(() => new Set(effects.map((e) => e.sequence)).size, { timeout: 30_000 })
        .toBe(before.length + after.length);
      expect(effects.some((e) => e.who === 'B')).toBe(true);

      const ordered = [...effects].sort((x, y) => x.start - y.start);
      const firstOfB = ordered.findIndex((e) => e.who === 'B');
      // A acted only before B first did, and its last effect was over by then.
      expect(ordered.slice(firstOfB).every((e) => e.who === 'B')).toBe(true);
      expect(Math.max(...ordered.slice(0, firstOfB).map((e) => e.end))).toBeLessThanOrEqual(
        ordered[firstOfB]!.start,
      );
      // Each event first handled in stream order (a takeover may repeat some: reactions are idempotent).
      const firsts = ordered.map((e) => e.sequence).filter((s, i, all) => all.indexOf(s) === i);
      expect(firsts).toEqual([...before, ...after]);
    } finally {
      proxy.thaw();
      await a.stop();
      await b.stop();
    }
  });
});
