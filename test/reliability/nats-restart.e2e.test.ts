import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivateNats, startPrivateNats } from '@shop/testing';
import { CommandLoad, missingAcknowledged } from './command-load';
import { compareWithRebuild, figures, Stack, waitForProjections, writeFigures } from './harness';

/**
 * nats-server restarted (cleanly, then killed) while commands flow, on a private server: every
 * command answered 2xx is in the stream and the read model afterwards; while NATS is down the
 * gateway answers 503 in the envelope, quickly, and it recovers by itself.
 */
let nats: PrivateNats;
let stack: Stack;
const outageMs = Number(process.env.RELIABILITY_NATS_OUTAGE_MS ?? 3000);

beforeAll(async () => {
  nats = await startPrivateNats();
  stack = await Stack.start('natsrestart', { vars: { NATS_URL: nats.url } });
});
afterAll(async () => {
  writeFigures('nats-restart');
  await stack?.stop();
  await nats?.close();
});

describe('nats-server restart under load', () => {
  it('keeps every acknowledged command, answers 503 while down and recovers by itself', async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => stack.shopper({ wallet: false })));
    const load = new CommandLoad(users, { allowedCommandStatuses: [503] });
    load.start();
    const outages: { signal: 'SIGTERM' | 'SIGKILL'; down: number; up: number; recovered: number }[] = [];
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      await sleep(1500);
      const down = Date.now();
      await nats.stop(signal);
      await sleep(outageMs);
      const up = Date.now();
      await nats.start();
      // Recovered: commands are acknowledged again, without restarting anything.
      const deadline = Date.now() + 30_000;
      while (load.acknowledgedSince(up) < 5 && Date.now() < deadline) await sleep(100);
      outages.push({ signal, down, up, recovered: Date.now() });
      expect(load.acknowledgedSince(up), `recovered after ${signal}`).toBeGreaterThanOrEqual(5);
      figures.faultsSurvived++;
    }
    await sleep(1000);
    await load.stop();

    // While it was down: 503 SERVICE_UNAVAILABLE envelopes, reads from Postgres still 200.
    const during = load.answers.filter((a) => outages.some((o) => a.at > o.down + 500 && a.at < o.up));
    expect(during.filter((a) => a.kind !== 'read' && a.status === 503).length).toBeGreaterThan(0);
    expect(during.filter((a) => a.status === 503).every((a) => a.code === 'SERVICE_UNAVAILABLE')).toBe(true);
    expect(during.filter((a) => a.kind === 'read').every((a) => a.status === 200)).toBe(true);
    // Commands sent while NATS was known to be down are refused too; that they are refused at once,
    // not after the publish timeout, is proven in libs/eventstore/test/nats-down.int.test.ts.
    const refusals = during.filter(
      (a) => a.status === 503 && outages.some((o) => a.at - a.ms > o.down + 500),
    );
    expect(refusals.length).toBeGreaterThan(0);
    expect(load.unexpected).toEqual([]);
    figures.invariantsBroken += load.unexpected.length;

    // Afterwards: every acknowledged command is in the stream and in the read model.
    // The reactions came back too: a new user's wallet is provisioned (NATS consumer, provider, Postgres).
    const after = await stack.shopper({ wallet: true, funds: '0' });
    expect(after.evm).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const store = await stack.store();
    const last = await stack.quietSequence();
    await waitForProjections(stack.database, stack.env.schema, last, 60_000);
    const { missingInStream, missingInReadModel } = await missingAcknowledged(
      load.acknowledged,
      store,
      stack.database,
      stack.env.schema,
    );
    expect(load.acknowledged.length).toBeGreaterThan(50);
    expect(missingInStream).toEqual([]);
    expect(missingInReadModel).toEqual([]);
    // And the read model built live across the outages equals a rebuild from the stream.
    const { differing } = await compareWithRebuild(store, stack.database, stack.env.schema);
    figures.invariantsBroken += differing.length;
    expect(differing).toEqual([]);
  }, 120_000);
});
