import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dataKeyIdFor, systemActor } from '@shop/contracts';
import { cartAggregate, userAggregate } from '@shop/domain';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { DeciderRunner } from '../src/decider-runner';

const env = testEnvironment('snapshots');
let t: TestEventStore;
const key = randomBytes(32);

const meta = () => ({ commandId: randomUUID(), correlationId: randomUUID(), actor: systemActor });
const product = (n: number) => ({
  productId: `P${n}`,
  productName: `Product ${n}`,
  price: 1000 + n,
  image: 'https://img.example.com/1.jpg',
  productUrl: 'https://shop.example.com/p/1',
  retailer: 'Example',
});

/** The afterSequence of every load the store is asked for from now on. */
function recordLoads(): number[] {
  const loads: number[] = [];
  const load = t.store.load.bind(t.store);
  t.store.load = (name, id, after, commits) => (loads.push(after ?? 0), load(name, id, after, commits));
  return loads;
}

beforeAll(async () => {
  t = await openTestEventStore(env);
});
afterAll(async () => t.close());

describe('aggregate snapshots on JetStream', () => {
  it('a cold load reads the latest snapshot from the bucket and only the commits after it', async () => {
    const cartId = randomUUID();
    const writer = new DeciderRunner(t.store, { snapshots: { store: t.store.snapshots, key, every: 4 } });
    for (let n = 0; n < 10; n++) {
      const itemId = randomUUID();
      await writer.run(cartAggregate, cartId, { type: 'AddItem', itemId, product: product(n) }, meta());
      if (n % 3 === 0)
        await writer.run(cartAggregate, cartId, { type: 'RemoveItem', itemId, reason: 'removed' }, meta());
    }
    await writer.snapshotsWritten();
    const snapshot = await t.store.snapshots.read('cart', cartId);
    const last = await t.store.lastSequence(t.store.subject('cart', cartId));
    expect(snapshot!.version).toBeLessThan(last);

    const loads = recordLoads();
    const cold = await new DeciderRunner(t.store, {
      snapshots: { store: t.store.snapshots, key, every: 4 },
    }).state(cartAggregate, cartId);
    expect(loads).toEqual([snapshot!.version - 1]);
    const tail = await t.store.load('cart', cartId, snapshot!.version);
    expect(tail.events.length).toBeGreaterThan(0);
    const whole = await new DeciderRunner(t.store).state(cartAggregate, cartId);
    expect(cold).toEqual(whole);
    expect(cold.state.items.size).toBe(6);
  });

  it('reads no message past the last commit the server counts on the subject, from a snapshot or from the cache', async () => {
    const cartId = randomUUID();
    const snapshots = { store: t.store.snapshots, key, every: 4 };
    const add = (runner: DeciderRunner, n: number) =>
      runner.run(
        cartAggregate,
        cartId,
        { type: 'AddItem', itemId: randomUUID(), product: product(n) },
        meta(),
      );
    const writer = new DeciderRunner(t.store, { snapshots });
    for (let n = 0; n < 6; n++) await add(writer, n);
    await writer.snapshotsWritten();
    expect((await t.store.snapshots.read('cart', cartId))!.version).toBeLessThan(
      await t.store.lastSequence(t.store.subject('cart', cartId)),
    );

    // Each answer that finds nothing is a read to the stream's end on nats-server 2.9.
    const reads = vi.spyOn(t.store.jsm.streams, 'getMessage');
    try {
      const reader = new DeciderRunner(t.store, { snapshots });
      const cold = await reader.state(cartAggregate, cartId);
      expect(cold.state.items.size).toBe(6);
      expect(reads.mock.calls.length).toBe(3); // the snapshot's own commit, then the two after it
      await reader.state(cartAggregate, cartId);
      expect(reads.mock.calls.length).toBe(3);
      await add(writer, 6);
      const later = await reader.state(cartAggregate, cartId);
      expect(later.state.items.size).toBe(7);
      expect(reads.mock.calls.length).toBe(4);
      expect(reads.mock.settledResults.every((r) => r.type === 'fulfilled')).toBe(true);
    } finally {
      reads.mockRestore();
    }
    expect(await new DeciderRunner(t.store, { snapshots }).state(cartAggregate, cartId)).toEqual(
      await new DeciderRunner(t.store).state(cartAggregate, cartId),
    );
  });

  it("an erased user's snapshot no longer yields their personal data: it is sealed, and ignored once the key is gone", async () => {
    const userId = randomUUID();
    const writer = new DeciderRunner(t.store, { snapshots: { store: t.store.snapshots, key, every: 1 } });
    await writer.run(
      userAggregate,
      userId,
      { type: 'RegisterUser', providerSubject: 'sub-ada', email: 'ada.lovelace@example.com' },
      meta(),
    );
    await writer.run(userAggregate, userId, { type: 'SetDisplayName', displayName: 'Ada' }, meta());
    await writer.snapshotsWritten();
    const kv = await t.store.js.views.kv(t.store.snapshots.bucket);
    const raw = (await kv.get(`user.${userId}`))!.string();
    expect(raw).not.toContain('ada.lovelace');
    const before = await new DeciderRunner(t.store, {
      snapshots: { store: t.store.snapshots, key, every: 1 },
    }).state(userAggregate, userId);
    expect(before.state.email).toBe('ada.lovelace@example.com');

    await t.dataKeys.destroy(dataKeyIdFor('user', userId));
    expect(await t.store.snapshots.read('user', userId)).toBeNull();
    const loads = recordLoads();
    const after = await new DeciderRunner(t.store, {
      snapshots: { store: t.store.snapshots, key, every: 1 },
    }).state(userAggregate, userId);
    expect(loads).toEqual([0]);
    expect(JSON.stringify(after.state)).not.toContain('ada.lovelace');
    expect(after.version).toBe(before.version);
  });
});
