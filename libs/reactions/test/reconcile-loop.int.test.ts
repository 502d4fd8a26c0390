import { describe, expect, it } from 'vitest';
import { createLogger } from '@shop/logging';
import { testEnvironment } from '@shop/testing';
import { ReconcileLoop } from '../src/reconcile-loop';

const env = testEnvironment('reconcile');

/** One process's reconciler of the same open work as the others, counting what it drives. */
function reconciler(lockName: string, running: { now: number; most: number }) {
  const counts = { drives: 0 };
  const loop = new ReconcileLoop<string>({
    what: 'claims',
    intervalMs: 20,
    logger: createLogger('reconcile-test', 'silent'),
    singleHolder: { databaseUrl: env.databaseUrl, lockName },
    stale: async () => ['claim-1'],
    drive: async () => {
      counts.drives += 1;
      running.now += 1;
      running.most = Math.max(running.most, running.now);
      await new Promise((resolve) => setTimeout(resolve, 30));
      running.now -= 1;
    },
  });
  return { loop, counts };
}

describe('reconcile loop', () => {
  it('lets one process at a time drive the open work, and another take over when it stops', async () => {
    const lockName = `reconcile:${env.schema}:claims`;
    const running = { now: 0, most: 0 };
    const first = reconciler(lockName, running);
    const second = reconciler(lockName, running);
    first.loop.start();
    second.loop.start();
    await expect
      .poll(() => first.counts.drives + second.counts.drives, { timeout: 20_000 })
      .toBeGreaterThan(20);
    expect(running.most).toBe(1);
    expect(Math.min(first.counts.drives, second.counts.drives)).toBe(0);

    const [holder, standby] = first.counts.drives > 0 ? [first, second] : [second, first];
    await holder.loop.stop();
    await expect.poll(() => standby.counts.drives, { timeout: 20_000 }).toBeGreaterThan(0);
    await standby.loop.stop();
    expect(running.most).toBe(1);
  });
});
