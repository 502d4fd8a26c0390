import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpFreezeProxy, TcpFreezeProxy, testEnvironment } from '@shop/testing';
import { LockTiming } from '../src/lock-session';
import { ReconcileLoop } from '../src/reconcile-loop';

/**
 * Two reconcilers of the same open work, each reaching Postgres through a path of its own that
 * can freeze: stop forwarding without closing, so neither end learns anything until a timeout of
 * its own. Whatever freezes and thaws, when, the provider is never called by both at once, and a
 * holder stops before the standby acts.
 */

const env = testEnvironment('lockfrozen');

/** Short enough for a test; the argument is the production one (see LockSession). */
const timing: LockTiming = { heartbeatMs: 50, leaseMs: 300, longestEffectMs: 150 };
const effectMs = 10;

type Who = 'A' | 'B';
interface Call {
  who: Who;
  start: number;
  end: number;
}

/** The provider stand-in: counts its calls and when each ran. */
function providerStandIn() {
  const calls: Call[] = [];
  return {
    calls,
    async fund(who: Who): Promise<void> {
      const call: Call = { who, start: performance.now(), end: Infinity };
      calls.push(call);
      await sleep(effectMs);
      call.end = performance.now();
    },
  };
}

interface Process {
  who: Who;
  proxy: TcpFreezeProxy;
  loop: ReconcileLoop<string>;
  /** When the loop logged that it lost its lock. */
  lostAt: number[];
}

const proxies: TcpFreezeProxy[] = [];
const target = new URL(env.databaseUrl);

beforeAll(async () => {
  for (let i = 0; i < 2; i++) {
    proxies.push(await startTcpFreezeProxy(target.hostname, Number(target.port || 5432)));
  }
});
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
});

function reconciler(
  who: Who,
  proxy: TcpFreezeProxy,
  lockName: string,
  provider: ReturnType<typeof providerStandIn>,
): Process {
  const url = new URL(env.databaseUrl);
  url.hostname = proxy.host;
  url.port = String(proxy.port);
  const lostAt: number[] = [];
  const logger = {
    warn: (_: object, message: string) => {
      if (message.startsWith('lost the')) lostAt.push(performance.now());
    },
  };
  const loop = new ReconcileLoop<string>({
    what: 'claims',
    intervalMs: 25,
    logger: logger as never,
    singleHolder: { databaseUrl: url.toString(), lockName, timing },
    stale: async () => ['claim-1'],
    drive: async (_key, lock) => {
      lock.assertHeld();
      await provider.fund(who);
    },
  });
  return { who, proxy, loop, lostAt };
}

/** No two calls of the provider by different processes overlap. */
function assertNeverByBoth(calls: readonly Call[]): void {
  const ordered = [...calls].sort((a, b) => a.start - b.start);
  for (let i = 1; i < ordered.length; i++) {
    const previous = ordered[i - 1]!;
    const next = ordered[i]!;
    if (previous.who === next.who) continue;
    expect(previous.end, `${previous.who}'s call still ran when ${next.who} called`).toBeLessThanOrEqual(
      next.start,
    );
  }
}

/**
 * Every handover of the provider's calls from X to Y, while both ran, came after X logged the
 * loss of its lock: X stopped before Y acted.
 */
function assertHolderStoppedFirst(calls: readonly Call[], processes: readonly Process[]): void {
  const ordered = [...calls].sort((a, b) => a.start - b.start);
  for (let i = 1; i < ordered.length; i++) {
    const previous = ordered[i - 1]!;
    const next = ordered[i]!;
    if (previous.who === next.who) continue;
    const before = processes.find((p) => p.who === previous.who)!;
    expect(
      before.lostAt.some((at) => at > previous.start && at < next.start),
      `${previous.who} had not stopped when ${next.who} called the provider`,
    ).toBe(true);
  }
}

describe('a lock whose path to Postgres freezes', () => {
  it('is given up by its holder before the standby takes it and calls the provider', async () => {
    const provider = providerStandIn();
    const lockName = `reconcile:${env.schema}:${randomUUID()}`;
    const a = reconciler('A', proxies[0]!, lockName, provider);
    const b = reconciler('B', proxies[1]!, lockName, provider);
    a.loop.start();
    await expect.poll(() => provider.calls.length, { timeout: 10_000 }).toBeGreaterThan(0);
    b.loop.start();
    a.proxy.freeze();
    await expect.poll(() => provider.calls.some((c) => c.who === 'B'), { timeout: 20_000 }).toBe(true);
    a.proxy.thaw();
    const whileBothRan = provider.calls.slice();
    await a.loop.stop();
    await b.loop.stop();

    const firstOfB = provider.calls.find((c) => c.who === 'B')!;
    expect(a.lostAt.length).toBeGreaterThan(0);
    expect(a.lostAt[0]!).toBeLessThan(firstOfB.start);
    assertHolderStoppedFirst(whileBothRan, [a, b]);
    assertNeverByBoth(provider.calls);
  });

  it('never has the provider called by both, whatever freezes and thaws when', async () => {
    const step = fc.record({
      who: fc.constantFrom<Who>('A', 'B'),
      action: fc.constantFrom('freeze', 'thaw'),
      afterMs: fc.integer({ min: 0, max: 1200 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 1200 }),
        async (steps, bFirst, beforeThawMs) => {
          const provider = providerStandIn();
          const lockName = `reconcile:${env.schema}:${randomUUID()}`;
          const processes = [
            reconciler('A', proxies[0]!, lockName, provider),
            reconciler('B', proxies[1]!, lockName, provider),
          ];
          const [first, second] = bFirst ? [processes[1]!, processes[0]!] : processes;
          first!.loop.start();
          second!.loop.start();
          try {
            for (const { who, action, afterMs } of steps) {
              await sleep(afterMs);
              const { proxy } = processes.find((p) => p.who === who)!;
              if (action === 'freeze') proxy.freeze();
              else proxy.thaw();
            }
            await sleep(beforeThawMs);
          } finally {
            for (const { proxy } of processes) proxy.thaw();
          }
          // With both paths up again, the work goes on under one holder.
          const callsAtThaw = provider.calls.length;
          await expect.poll(() => provider.calls.length, { timeout: 20_000 }).toBeGreaterThan(callsAtThaw);
          // Stopping hands the lock over by a release, not a loss: handovers are checked up to here.
          const whileBothRan = provider.calls.slice();
          await Promise.all(processes.map((p) => p.loop.stop()));
          assertHolderStoppedFirst(whileBothRan, processes);
          assertNeverByBoth(provider.calls);
        },
      ),
      { numRuns: 10 },
    );
  }, 240_000);
});
