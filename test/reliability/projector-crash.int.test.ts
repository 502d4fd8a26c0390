import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkpoints,
  Client,
  compareWithRebuild,
  figures,
  product,
  readModelTables,
  runWorkers,
  Shopper,
  Stack,
  waitForProjections,
  writeFigures,
} from './harness';

/**
 * kill -9 of the projector in the middle of large batches, twice, then a restart: the read
 * model it ends with equals a fresh rebuild from the stream, table by table.
 */
const backlogCommits = Number(process.env.RELIABILITY_PROJECTOR_BACKLOG ?? 2500);
const kills = 2;

let stack: Stack;
let shoppers: Shopper[];

beforeAll(async () => {
  stack = await Stack.start('projkill');
  shoppers = await Promise.all(Array.from({ length: 10 }, () => stack.shopper({ funds: '500' })));
});
afterAll(async () => {
  writeFigures('projector-crash', { backlogCommits, kills });
  await stack?.stop();
});

describe('projector killed mid-batch', () => {
  it('ends with a read model equal to a fresh rebuild of every table', async () => {
    // Phase A, projector running: every kind of row exists (orders through webhooks, chat messages).
    for (const [i, shopper] of shoppers.slice(0, 4).entries()) {
      const item = await shopper.client.request('POST', '/api/cart', product(`seed-${i}`, 1500));
      const checkout = await shopper.client.request('POST', '/api/checkout', { cartItemId: item.json.id });
      expect(checkout.status).toBe(201);
      if (i % 2 === 0) stack.provider.approve(checkout.json.providerOrderId as string);
      else stack.provider.fail(checkout.json.providerOrderId as string, 'payment', 'declined');
    }
    for (const shopper of shoppers.slice(0, 3)) {
      const reply = await shopper.client.request('POST', '/api/chat', {
        messages: [{ id: randomUUID(), role: 'user', parts: [{ type: 'text', text: 'hello there' }] }],
      });
      expect(reply.status).toBe(200);
    }
    await stack.provider.waitForDeliveries();
    await stack.quietSequence(750);

    // Phase B, projector stopped: a large backlog from a gateway that does not wait for the read side.
    await stack.stopProjector();
    const fast = await stack.startGateway({ READ_YOUR_WRITES_TIMEOUT_MS: '0' });
    const clients = shoppers.map((s) => {
      const c = new Client(fast);
      c.setCookie('provider-jwt', s.client.cookie('provider-jwt')!);
      return c;
    });
    const store = await stack.store();
    const start = await store.lastStreamSequence();
    const active = clients.map(() => [] as string[]);
    const sessions = clients.map(() => [] as string[]);
    let failures = 0;
    let commands = 0;
    // One worker per user, so each user's own sequence of commands is deterministic.
    await runWorkers(
      clients.length,
      async (worker, iteration) => {
        const u = worker;
        const client = clients[u]!;
        const kind = iteration % 5;
        let res;
        if (kind <= 1) {
          res = await client.request('POST', '/api/cart', product(`${u}-${iteration}`, 100 + iteration));
          if (res.status === 201) active[u]!.push(res.json.id as string);
          if (active[u]!.length > 6) {
            const victim = active[u]!.shift()!;
            const removed = await client.request('DELETE', `/api/cart/${victim}`);
            if (removed.status !== 204) {
              failures++;
              console.error('unexpected removal answer', removed.status, removed.text);
            } else commands++;
          }
        } else if (kind === 2) {
          res = await client.request('POST', '/api/sessions', { title: `Session ${iteration}` });
          if (res.status === 201) sessions[u]!.push(res.json.id as string);
        } else if (kind === 3 && sessions[u]!.length > 0) {
          const id = sessions[u]![iteration % sessions[u]!.length]!;
          res = await client.request('PATCH', `/api/sessions/${id}`, { title: `Renamed ${iteration}` });
        } else if (kind === 4 && sessions[u]!.length > 3) {
          res = await client.request('DELETE', `/api/sessions/${sessions[u]!.shift()!}`);
        } else {
          res = await client.request('POST', '/api/onboarding/step-1', { displayName: `Name ${iteration}` });
        }
        if (res.status >= 300) {
          failures++;
          console.error('unexpected answer', kind, res.status, res.text);
        } else commands++;
      },
      () => commands >= backlogCommits || failures > 0,
    );
    expect(failures).toBe(0);
    const last = await stack.quietSequence(750);
    expect(last - start).toBeGreaterThanOrEqual(backlogCommits);

    // Phase C: the projector process works through the backlog and is killed mid-batch, twice.
    const schema = stack.env.schema;
    const killedAt: Record<string, number>[] = [];
    for (let k = 0; k < kills; k++) {
      const projector = stack.spawnProjector({ PROJECTOR_BATCH_SIZE: '500' });
      const before = await checkpoints(stack.database, schema);
      const deadline = Date.now() + 60_000;
      for (;;) {
        const now = await checkpoints(stack.database, schema);
        // Large batches are being committed and a backlog remains: kill it now, mid-batch.
        const progressed = Object.entries(now).some(([name, p]) => p - (before[name] ?? 0) >= 400);
        if (progressed && Object.values(now).some((p) => p < last - 500)) break;
        if (Object.values(now).every((p) => p >= last))
          throw new Error('the projector caught up before it could be killed');
        if (Date.now() > deadline) throw new Error(`projector made no progress:\n${projector.output()}`);
        await sleep(5);
      }
      await projector.kill();
      figures.faultsSurvived++;
      const at = await checkpoints(stack.database, schema);
      killedAt.push(at);
      for (const [name, p] of Object.entries(at)) expect(p, name).toBeGreaterThanOrEqual(before[name] ?? 0);
    }
    expect(Math.min(...Object.values(killedAt.at(-1)!))).toBeLessThan(last);

    const survivor = stack.spawnProjector({ PROJECTOR_BATCH_SIZE: '500' });
    await waitForProjections(stack.database, schema, last, 90_000);

    // Phase D: the live read model, built across two crashes, equals a rebuild from sequence 1.
    // The survivor keeps applying meanwhile: a reaction may still append (see compareWithRebuild).
    const { differing, live } = await compareWithRebuild(store, stack.database, schema);
    await survivor.stop();
    figures.invariantsBroken += differing.length;
    expect(differing).toEqual([]);
    for (const table of ['users', 'cart_items', 'chat_sessions', 'orders'])
      expect(live[table]!.rows, table).toBeGreaterThan(0);
    expect(Object.keys(live).sort()).toEqual(readModelTables().sort());
  }, 240_000);
});
