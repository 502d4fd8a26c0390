import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemActor } from '@shop/contracts';
import type { DatabaseHandle } from '@shop/db';
import type { EventStore } from '@shop/eventstore';
import { rebuildProjections, tableChecksums } from '@shop/projections';
import { readModelMigrations, readModelProjections } from '@shop/read-models';
import { startTestStack, TestClient, TestStack } from './stack';

let stack: TestStack;
let store: EventStore;
let database: DatabaseHandle;

beforeAll(async () => {
  stack = await startTestStack('cartetc');
  store = stack.store;
  database = stack.database;
});
afterAll(async () => {
  await stack?.stop();
});

const email = () => `${randomUUID().slice(0, 8)}@example.com`;
const product = (n: number, overrides: Record<string, unknown> = {}) => ({
  productId: `B0${String(n).padStart(8, '0')}`,
  productName: `Trail runner ${n}`,
  price: 8999,
  image: `https://images.example.com/${n}.jpg`,
  productUrl: `https://shop.example.com/dp/${n}`,
  retailer: 'Example Outfitters',
  ...overrides,
});

async function onboarded(): Promise<{ client: TestClient; userId: string }> {
  const client = new TestClient(stack.url);
  const userId = await client.onboard(email());
  return { client, userId };
}

describe('gating', () => {
  it('answers 401 without a session and 403 ONBOARDING_INCOMPLETE before step 3, then opens at once', async () => {
    const anonymous = await new TestClient(stack.url).request('GET', '/api/cart');
    expect([anonymous.status, anonymous.json.code]).toEqual([401, 'UNAUTHORIZED']);
    const client = new TestClient(stack.url);
    await client.request('POST', '/api/dev/login', { email: email() });
    for (const path of ['/api/cart', '/api/sessions', '/api/orders']) {
      const res = await client.request('GET', path);
      expect([res.status, res.json.code], path).toEqual([403, 'ONBOARDING_INCOMPLETE']);
    }
    await client.request('POST', '/api/onboarding/step-1', { displayName: 'A' });
    await client.request('POST', '/api/onboarding/step-2', {
      firstName: 'A',
      lastName: 'B',
      street: '1 Main Street',
      country: 'GB',
      city: 'London',
      zip: 'N1 9GU',
    });
    expect((await client.request('GET', '/api/cart')).status).toBe(403);
    await client.request('POST', '/api/onboarding/step-3', {
      topsSize: 'S',
      bottomsSize: '30',
      footwearSize: '40',
    });
    expect((await client.request('GET', '/api/cart')).status).toBe(200);
  });
});

describe('cart (database mode)', () => {
  it('adds, lists, and soft-deletes items', async () => {
    const { client, userId } = await onboarded();
    const created = await client.request('POST', '/api/cart', product(1, { size: 'M' }));
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      userId,
      productId: product(1).productId,
      size: 'M',
      color: 'Default',
      price: 8999,
    });
    expect(created.json.id).toMatch(/^[0-9a-f-]{36}$/);
    const listed = await client.request('GET', '/api/cart');
    expect(listed.json).toEqual({ items: [created.json] });
    const removed = await client.request('DELETE', `/api/cart/${created.json.id}`);
    expect([removed.status, removed.text]).toEqual([204, '']);
    expect((await client.request('GET', '/api/cart')).json).toEqual({ items: [] });
    const { rows } = await database.pool.query(
      `SELECT deleted_at FROM ${stack.env.schema}.cart_items WHERE item_id = $1`,
      [created.json.id],
    );
    expect(rows[0].deleted_at).not.toBeNull();
  });

  it('answers every cart error code', async () => {
    const { client } = await onboarded();
    const cases: [unknown, number, string][] = [
      [{ ...product(1), price: 'cheap' }, 400, 'VALIDATION_ERROR'],
      [{ productName: 'x' }, 400, 'VALIDATION_ERROR'],
      [{ ...product(1), productId: 'x'.repeat(256) }, 400, 'VALIDATION_ERROR'],
      [{ ...product(1), size: 'x'.repeat(51) }, 400, 'VALIDATION_ERROR'],
      [product(1, { price: -1 }), 400, 'CartInvalidProductError'],
      [product(1, { price: 10.5 }), 400, 'CartInvalidProductError'],
      [product(1, { image: 'not-a-url' }), 400, 'CartInvalidProductError'],
      [product(1, { productUrl: 'ftp://x.example.com' }), 400, 'CartInvalidProductError'],
    ];
    for (const [body, status, code] of cases) {
      const res = await client.request('POST', '/api/cart', body);
      expect([res.status, res.json.code], JSON.stringify(body).slice(0, 80)).toEqual([status, code]);
    }
    expect((await client.request('POST', '/api/cart', product(1))).status).toBe(201);
    const duplicate = await client.request('POST', '/api/cart', product(1));
    expect([duplicate.status, duplicate.json.code]).toEqual([409, 'CartDuplicateItemError']);
    for (let i = 2; i <= 10; i++)
      expect((await client.request('POST', '/api/cart', product(i))).status).toBe(201);
    const full = await client.request('POST', '/api/cart', product(11));
    expect([full.status, full.json.code]).toEqual([400, 'CartFullError']);
    const missing = await client.request('DELETE', `/api/cart/${randomUUID()}`);
    expect([missing.status, missing.json.code]).toEqual([404, 'CartItemNotFoundError']);
    const badId = await client.request('DELETE', '/api/cart/not-a-uuid');
    expect([badId.status, badId.json.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it("cannot remove another user's item", async () => {
    const alice = await onboarded();
    const bob = await onboarded();
    const item = await alice.client.request('POST', '/api/cart', product(1));
    const res = await bob.client.request('DELETE', `/api/cart/${item.json.id}`);
    expect([res.status, res.json.code]).toEqual([404, 'CartItemNotFoundError']);
    expect((await alice.client.request('GET', '/api/cart')).json.items).toHaveLength(1);
  });

  it('20 parallel adds of distinct products on an empty cart: exactly 10 created and 10 CartFullError', async () => {
    const { client } = await onboarded();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.request('POST', '/api/cart', product(100 + i))),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    expect(results.filter((r) => r.status === 400 && r.json.code === 'CartFullError')).toHaveLength(10);
    expect((await client.request('GET', '/api/cart')).json.items).toHaveLength(10);
  });

  it('10 parallel adds of the same product, across two gateways: one created and nine CartDuplicateItemError', async () => {
    const { client } = await onboarded();
    const second = new TestClient(await stack.startGateway());
    second.setCookie('provider-jwt', client.cookie('provider-jwt')!);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? second : client).request('POST', '/api/cart', product(7)),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && r.json.code === 'CartDuplicateItemError')).toHaveLength(
      9,
    );
    expect((await client.request('GET', '/api/cart')).json.items).toHaveLength(1);
  });

  it('never serves a stale cart from the cache after a write', async () => {
    const { client } = await onboarded();
    for (let i = 0; i < 5; i++) {
      await client.request('GET', '/api/cart');
      const added = await client.request('POST', '/api/cart', product(200 + i));
      const listed = await client.request('GET', '/api/cart');
      expect((listed.json.items as { id: string }[]).map((x) => x.id)).toContain(added.json.id);
      await client.request('DELETE', `/api/cart/${added.json.id}`);
      const after = await client.request('GET', '/api/cart');
      expect((after.json.items as { id: string }[]).map((x) => x.id)).not.toContain(added.json.id);
    }
  });

  it('stores a retried add with the same Idempotency-Key once', async () => {
    const { client } = await onboarded();
    const key = randomUUID();
    const first = await client.request('POST', '/api/cart', product(300), { 'idempotency-key': key });
    const again = await client.request('POST', '/api/cart', product(300), { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.json).toEqual(first.json);
    expect((await client.request('GET', '/api/cart')).json.items).toHaveLength(1);
  });

  it('answers the on-chain routes as database mode does', async () => {
    const { client } = await onboarded();
    const init = await client.request('POST', '/api/cart/init');
    expect([init.status, init.json.code]).toEqual([400, 'CONTRACT_NOT_CONFIGURED']);
    expect((await client.request('GET', '/api/cart/address')).json).toEqual({
      cartAddress: null,
      exists: false,
    });
    await client.request('POST', '/api/cart', product(1));
    expect((await client.request('GET', '/api/cart/info')).json).toEqual({
      cartAddress: '',
      itemCount: 1,
      exists: false,
    });
  });
});

describe('chat sessions', () => {
  it('creates, lists newest-updated first, renames, gets with messages, and deletes', async () => {
    const { client, userId } = await onboarded();
    const first = await client.request('POST', '/api/sessions', { title: 'Running shoes' });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ userId, title: 'Running shoes' });
    const untitled = await client.request('POST', '/api/sessions', {});
    expect(untitled.status).toBe(201);
    expect(untitled.json).not.toHaveProperty('title');

    const renamed = await client.request('PATCH', `/api/sessions/${first.json.id}`, { title: 'Trail shoes' });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toMatchObject({ id: first.json.id, title: 'Trail shoes' });

    const list = await client.request('GET', '/api/sessions');
    expect(list.json.total).toBe(2);
    expect((list.json.sessions as { id: string }[]).map((s) => s.id)).toEqual([
      first.json.id,
      untitled.json.id,
    ]);
    const page = await client.request('GET', '/api/sessions?limit=1&offset=1');
    expect((page.json.sessions as { id: string }[]).map((s) => s.id)).toEqual([untitled.json.id]);
    expect(page.json.total).toBe(2);

    await store.append(
      'session',
      first.json.id as string,
      [
        {
          type: 'ChatMessageAppended',
          data: { messageId: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] },
        },
        {
          type: 'ChatMessageAppended',
          data: { messageId: 'm2', role: 'assistant', parts: [{ type: 'text', text: 'hello' }] },
        },
      ],
      {
        commandId: randomUUID(),
        correlationId: 'test',
        actor: systemActor,
        expectedSequence: await store.lastSequence(store.subject('session', first.json.id as string)),
      },
    );
    const detail = await eventuallyMessages(client, first.json.id as string, 2);
    expect((detail.json.messages as { id: string; role: string }[]).map((m) => [m.id, m.role])).toEqual([
      ['m1', 'user'],
      ['m2', 'assistant'],
    ]);

    expect((await client.request('DELETE', `/api/sessions/${first.json.id}`)).status).toBe(204);
    const gone = await client.request('GET', `/api/sessions/${first.json.id}`);
    expect([gone.status, gone.json.code]).toEqual([404, 'SessionNotFound']);
    const { rows } = await database.pool.query(
      `SELECT count(*)::int AS n FROM ${stack.env.schema}.chat_messages WHERE session_id = $1`,
      [first.json.id],
    );
    expect(rows[0].n).toBe(0);
  });

  it('answers every session error code', async () => {
    const alice = await onboarded();
    const bob = await onboarded();
    const session = await alice.client.request('POST', '/api/sessions', { title: 'Mine' });
    for (const [method, body] of [['GET'], ['PATCH', { title: 'x' }], ['DELETE']] as [string, unknown?][]) {
      const foreign = await bob.client.request(method, `/api/sessions/${session.json.id}`, body);
      expect([foreign.status, foreign.json.code], method).toEqual([403, 'SessionOwnershipError']);
      const missing = await bob.client.request(method, `/api/sessions/${randomUUID()}`, body);
      expect([missing.status, missing.json.code], method).toEqual([404, 'SessionNotFound']);
      const badId = await bob.client.request(method, '/api/sessions/123', body);
      expect([badId.status, badId.json.code], method).toEqual([400, 'VALIDATION_ERROR']);
    }
    for (const body of [{}, { title: '' }, { title: 'x'.repeat(256) }]) {
      const res = await alice.client.request('PATCH', `/api/sessions/${session.json.id}`, body);
      expect([res.status, res.json.code]).toEqual([400, 'VALIDATION_ERROR']);
    }
    expect((await alice.client.request('POST', '/api/sessions', { title: 'x'.repeat(256) })).status).toBe(
      400,
    );
    for (const query of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc']) {
      expect((await alice.client.request('GET', `/api/sessions?${query}`)).status, query).toBe(400);
    }
  });
});

async function eventuallyMessages(client: TestClient, id: string, count: number) {
  for (let i = 0; i < 100; i++) {
    const res = await client.request('GET', `/api/sessions/${id}`);
    if ((res.json.messages as unknown[]).length >= count) return res;
    await new Promise((r) => setTimeout(r, 30));
  }
  throw new Error('messages never arrived');
}

describe('orders read side', () => {
  async function seedOrder(userId: string, type: 'checkout' | 'deposit', progress: string[] = []) {
    const orderId = randomUUID();
    const meta = () => ({ commandId: randomUUID(), correlationId: 'seed', actor: systemActor });
    let version = (
      await store.append(
        'order',
        orderId,
        [
          {
            type: 'OrderCreated',
            data: {
              userId,
              type,
              cartItemId: type === 'checkout' ? randomUUID() : null,
              providerOrderId: `prov-${orderId.slice(0, 8)}`,
              phase: 'awaiting-approval',
              item: type === 'checkout' ? { ...product(1), size: 'M', color: 'Default' } : null,
              payment: { status: 'awaiting-payment', currency: 'usdc' },
              quote: { totalPrice: { amount: '89.99', currency: 'usdc' } },
              walletAddress: null,
              serializedTransaction: null,
            },
          },
        ],
        { ...meta(), expectedSequence: 0 },
      )
    ).sequence;
    for (const type of progress) {
      version = (
        await store.append(
          'order',
          orderId,
          [
            {
              type,
              data: {
                phase: 'delivery',
                payment: { status: 'completed', currency: 'usdc' },
                quote: null,
                deliveryId: null,
              },
            },
          ],
          { ...meta(), expectedSequence: version },
        )
      ).sequence;
    }
    return { orderId, version };
  }

  it('lists newest first with filters applied before paging, and gets one order', async () => {
    const { client, userId } = await onboarded();
    // Newest first is by creation time, in milliseconds; orders created within one millisecond
    // are listed by id. The pauses keep these three apart, as orders a shopper makes are.
    const a = await seedOrder(userId, 'checkout');
    await sleep(3);
    const b = await seedOrder(userId, 'deposit');
    await sleep(3);
    const c = await seedOrder(userId, 'checkout', [
      'OrderPaymentConfirmed',
      'OrderDeliveryStarted',
      'OrderDelivered',
    ]);
    await stack.projector.runners.find((r) => r.name === 'orders')!.caughtUp(c.version);

    const all = await client.request('GET', '/api/orders');
    expect(all.json).toMatchObject({ total: 3, page: 1, limit: 20 });
    expect((all.json.orders as { orderId: string }[]).map((o) => o.orderId)).toEqual([
      c.orderId,
      b.orderId,
      a.orderId,
    ]);
    const delivered = (all.json.orders as Record<string, unknown>[])[0]!;
    expect(delivered).toMatchObject({ status: 'delivered', phase: 'delivery', type: 'checkout' });
    expect(delivered.item).toMatchObject({ productId: product(1).productId, price: 8999 });

    const deposits = await client.request('GET', '/api/orders?type=deposit');
    expect(deposits.json.total).toBe(1);
    const checkoutsPage2 = await client.request('GET', '/api/orders?type=checkout&limit=1&page=2');
    expect(checkoutsPage2.json).toMatchObject({ total: 2, page: 2, limit: 1 });
    expect((checkoutsPage2.json.orders as { orderId: string }[]).map((o) => o.orderId)).toEqual([a.orderId]);
    expect((await client.request('GET', '/api/orders?status=delivered')).json.total).toBe(1);
    expect((await client.request('GET', '/api/orders?phase=awaiting-approval')).json.total).toBe(2);

    // A deposit has no provider order to merge; a checkout order is merged live (see checkout tests).
    const one = await client.request('GET', `/api/orders/${b.orderId}`);
    expect(one.json).toMatchObject({ orderId: b.orderId, type: 'deposit', status: 'awaiting_approval' });
  });

  it('never serves a stale order list from the cache once the projection has applied a change', async () => {
    const { client, userId } = await onboarded();
    const orders = stack.projector.runners.find((r) => r.name === 'orders')!;
    const listed = async (query = '') =>
      (
        (await client.request('GET', `/api/orders${query}`)).json.orders as {
          orderId: string;
          status: string;
        }[]
      ).map((o) => `${o.orderId}:${o.status}`);
    expect(await listed()).toEqual([]);
    expect(await listed('?type=deposit')).toEqual([]);
    const first = await seedOrder(userId, 'deposit');
    await orders.caughtUp(first.version);
    expect(await listed()).toEqual([`${first.orderId}:awaiting_approval`]);
    expect(await listed('?type=deposit')).toEqual([`${first.orderId}:awaiting_approval`]);

    // An event that does not name the user (the status moves) must reach the cached pages too.
    const version = (
      await store.append(
        'order',
        first.orderId,
        [
          {
            type: 'OrderPaymentConfirmed',
            data: { phase: 'delivery', payment: null, quote: null, deliveryId: null },
          },
        ],
        {
          commandId: randomUUID(),
          correlationId: 'seed',
          actor: systemActor,
          expectedSequence: first.version,
        },
      )
    ).sequence;
    await orders.caughtUp(version);
    expect(await listed()).toEqual([`${first.orderId}:payment_confirmed`]);
    expect(await listed('?type=deposit')).toEqual([`${first.orderId}:payment_confirmed`]);
  });

  it('refuses malformed paging and filters with 400, and hides other users orders', async () => {
    const { client, userId } = await onboarded();
    const other = await onboarded();
    const { orderId, version } = await seedOrder(userId, 'checkout');
    await stack.projector.runners.find((r) => r.name === 'orders')!.caughtUp(version);
    for (const query of [
      'page=0',
      'page=-1',
      'page=abc',
      'page=1.5',
      'limit=0',
      'limit=101',
      'type=refund',
      'status=lost',
    ]) {
      const res = await client.request('GET', `/api/orders?${query}`);
      expect([res.status, res.json.code], query).toEqual([400, 'VALIDATION_ERROR']);
    }
    const foreign = await other.client.request('GET', `/api/orders/${orderId}`);
    expect([foreign.status, foreign.json.code]).toEqual([404, 'OrderNotFoundError']);
    expect((await other.client.request('GET', '/api/orders')).json.total).toBe(0);
    expect((await client.request('GET', '/api/orders/not-a-uuid')).status).toBe(400);
  });
});

describe('rebuild', () => {
  it('rebuilds the cart, sessions and orders projections with rows identical to the live ones', async () => {
    const last = await store.lastStreamSequence();
    for (const runner of stack.projector.runners) await runner.caughtUp(last);
    const projections = readModelProjections();
    const tables = projections.flatMap((p) => p.tables);
    const rebuilt = `${stack.env.schema}_rebuilt`;
    await rebuildProjections({
      store,
      db: database.db,
      schema: rebuilt,
      projections,
      migrations: readModelMigrations,
      untilSequence: last,
    });
    const live = await tableChecksums(database.db, stack.env.schema, tables);
    expect(live.cart_items!.rows).toBeGreaterThan(10);
    expect(live.chat_sessions!.rows).toBeGreaterThan(0);
    expect(live.orders!.rows).toBeGreaterThan(0);
    expect(await tableChecksums(database.db, rebuilt, tables)).toEqual(live);
    await database.pool.query(`DROP SCHEMA ${rebuilt} CASCADE`);
  });
});
