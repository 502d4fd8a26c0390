import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'svix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '@shop/db';
import type { EventStore } from '@shop/eventstore';
import { rebuildProjections, tableChecksums } from '@shop/projections';
import { ordersProjection, readModelMigrations } from '@shop/read-models';
import { eventually, startTestStack, TestClient, TestStack } from './stack';

const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
let stack: TestStack;
let store: EventStore;
let database: DatabaseHandle;

beforeAll(async () => {
  stack = await startTestStack('checkout', { PROVIDER_WEBHOOK_SECRET: webhookSecret });
  stack.provider.setWebhookTarget(`${stack.url}/api/webhooks/provider`, webhookSecret);
  store = stack.store;
  database = stack.database;
});
afterAll(async () => {
  await stack?.stop();
});

const product = (n: number) => ({
  productId: `B0CHK${String(n).padStart(5, '0')}`,
  productName: `Rain jacket ${n}`,
  price: 8999,
  image: `https://images.example.com/${n}.jpg`,
  productUrl: `https://shop.example.com/dp/${n}`,
  retailer: 'Example Outfitters',
});

async function shopper(options: { funds?: string; state?: string | null } = {}) {
  const client = new TestClient(stack.url);
  await client.request('POST', '/api/dev/login', { email: `${randomUUID().slice(0, 8)}@example.com` });
  await client.request('POST', '/api/onboarding/step-1', { displayName: 'Ada' });
  await client.request('POST', '/api/onboarding/step-2', {
    firstName: 'Ada',
    lastName: 'Lovelace',
    street: '1 Main Street',
    country: 'US',
    city: 'Austin',
    ...(options.state === null ? {} : { state: options.state ?? 'TX' }),
    zip: '78701',
  });
  await client.request('POST', '/api/onboarding/step-3', {
    topsSize: 'M',
    bottomsSize: '32',
    footwearSize: '42',
  });
  const profile = await eventually(
    () => client.request('GET', '/api/auth/profile'),
    (r) => r.json.walletStatus === 'active' || r.json.walletStatus === 'failed',
  );
  const evm = profile.json.evmAddress as string | null;
  if (evm && options.funds !== '0') stack.provider.fund(evm, options.funds ?? '500');
  return { client, evm, userId: profile.json.userId as string };
}

async function cartItem(client: TestClient, n: number): Promise<string> {
  const res = await client.request('POST', '/api/cart', product(n));
  expect(res.status).toBe(201);
  return res.json.id as string;
}

const orderOf = (client: TestClient, orderId: string) => client.request('GET', `/api/orders/${orderId}`);
const eventsOf = async (aggregate: 'order' | 'provider-webhook', id: string) =>
  (await store.load(aggregate, id)).events.map((e) => e.type);

describe('checkout -> approval -> webhooks -> delivered', () => {
  it('runs the whole flow: the order is delivered and the item has left the cart', async () => {
    const { client, evm } = await shopper();
    const itemId = await cartItem(client, 1);
    const res = await client.request('POST', '/api/checkout', { cartItemId: itemId });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      orderId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      providerOrderId: expect.any(String),
      phase: expect.any(String),
      serializedTransaction: expect.stringMatching(/^0x[0-9a-f]+$/i),
      walletAddress: evm,
    });
    const orderId = res.json.orderId as string;
    const created = await orderOf(client, orderId);
    expect(created.json).toMatchObject({
      status: 'awaiting_approval',
      type: 'checkout',
      item: { productId: product(1).productId },
    });

    // The same item again while its order is open: the same order, no second provider order.
    const again = await client.request('POST', '/api/checkout', { cartItemId: itemId });
    expect([again.status, again.json.orderId]).toEqual([201, orderId]);

    stack.provider.approve(res.json.providerOrderId as string);
    const delivered = await eventually(
      () => orderOf(client, orderId),
      (r) => r.json.status === 'delivered',
    );
    expect(delivered.json.status).toBe('delivered');
    expect(await eventsOf('order', orderId)).toEqual([
      'OrderCreated',
      'OrderPaymentConfirmed',
      'OrderDeliveryStarted',
      'OrderDelivered',
    ]);
    const cart = await eventually(
      () => client.request('GET', '/api/cart'),
      (r) => (r.json.items as unknown[]).length === 0,
    );
    expect(cart.json.items).toEqual([]);
  });

  it('answers each checkout error code', async () => {
    const { client } = await shopper();
    const missing = await client.request('POST', '/api/checkout', { cartItemId: randomUUID() });
    expect([missing.status, missing.json.code]).toEqual([404, 'CartItemNotFoundError']);
    expect((await client.request('POST', '/api/checkout', { cartItemId: 'nope' })).status).toBe(400);

    const other = await shopper();
    const foreign = await client.request('POST', '/api/checkout', {
      cartItemId: await cartItem(other.client, 2),
    });
    expect([foreign.status, foreign.json.code]).toEqual([404, 'CartItemNotFoundError']);

    const noState = await shopper({ state: null });
    const noAddress = await noState.client.request('POST', '/api/checkout', {
      cartItemId: await cartItem(noState.client, 3),
    });
    expect([noAddress.status, noAddress.json.code]).toEqual([400, 'CheckoutMissingAddressError']);

    const poor = await shopper({ funds: '0' });
    const broke = await poor.client.request('POST', '/api/checkout', {
      cartItemId: await cartItem(poor.client, 4),
    });
    expect([broke.status, broke.json.code]).toEqual([422, 'InsufficientFundsError']);

    stack.provider.failNext('wallets.create', { times: 20, status: 503 });
    const walletless = await shopper();
    stack.provider.clearFaults();
    const noWallet = await walletless.client.request('POST', '/api/checkout', {
      cartItemId: await cartItem(walletless.client, 5),
    });
    expect([noWallet.status, noWallet.json.code]).toEqual([400, 'CheckoutNoWalletError']);
  }, 60_000);

  it('answers 502 when the provider is down at checkout, and a later checkout resumes that order', async () => {
    const { client } = await shopper();
    const itemId = await cartItem(client, 6);
    stack.provider.failNext('orders.create', { times: 10, status: 503 });
    const failed = await client.request('POST', '/api/checkout', { cartItemId: itemId });
    expect([failed.status, failed.json.code]).toEqual([502, 'CheckoutOrderCreationError']);
    stack.provider.clearFaults();
    expect((await client.request('POST', '/api/checkout', { cartItemId: itemId })).status).toBe(201);
  });

  it('answers 502 for one order when the provider is down at read time, but keeps the list working', async () => {
    const { client } = await shopper();
    const res = await client.request('POST', '/api/checkout', { cartItemId: await cartItem(client, 7) });
    stack.provider.failNext('orders.get', { times: 50, status: 503 });
    const one = await orderOf(client, res.json.orderId as string);
    expect([one.status, one.json.code]).toEqual([502, 'CheckoutOrderCreationError']);
    const list = await client.request('GET', '/api/orders');
    expect(list.status).toBe(200);
    expect(list.json.total).toBe(1);
    stack.provider.clearFaults();
  });

  it('creates one provider order under concurrent checkouts of one item', async () => {
    const { client } = await shopper();
    const itemId = await cartItem(client, 8);
    const before = stack.provider.requests('orders.create').length;
    const results = await Promise.all(
      Array.from({ length: 5 }, () => client.request('POST', '/api/checkout', { cartItemId: itemId })),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.json.orderId)).size).toBe(1);
    expect(results.every((r) => r.status === 201 || (r.status === 409 && r.json.code === 'CONFLICT'))).toBe(
      true,
    );
    expect(stack.provider.requests('orders.create').length - before).toBe(1);
  });
});

describe('provider webhooks', () => {
  const sign = (body: string, id: string, at = new Date()) => ({
    'content-type': 'application/json',
    'svix-id': id,
    'svix-timestamp': String(Math.floor(at.getTime() / 1000)),
    'svix-signature': new Webhook(webhookSecret).sign(id, at, body),
  });
  const post = (body: string, headers: Record<string, string>) =>
    fetch(`${stack.url}/api/webhooks/provider`, { method: 'POST', headers, body });

  async function placedOrder() {
    const { client } = await shopper();
    const res = await client.request('POST', '/api/checkout', { cartItemId: await cartItem(client, 9) });
    return {
      client,
      orderId: res.json.orderId as string,
      providerOrderId: res.json.providerOrderId as string,
    };
  }

  it('refuses bad signatures and stale timestamps with 401 and appends nothing', async () => {
    const { providerOrderId } = await placedOrder();
    const body = JSON.stringify({
      type: 'orders.payment.succeeded',
      data: { orderId: providerOrderId, phase: 'delivery', payment: { status: 'completed' } },
    });
    const id = `msg_${randomUUID().replace(/-/g, '')}`;
    const cases = [
      { ...sign(body, id), 'svix-signature': 'v1,AAAA' },
      { ...sign(body, id), 'svix-timestamp': String(Math.floor(Date.now() / 1000) - 600) },
      sign(body, id, new Date(Date.now() - 10 * 60_000)),
      { 'content-type': 'application/json' },
      sign(`${body} `, id),
    ];
    for (const headers of cases) {
      const res = await post(body, headers as Record<string, string>);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    }
    expect(await eventsOf('provider-webhook', id)).toEqual([]);
  });

  it('records five deliveries of one id once', async () => {
    const { client, orderId, providerOrderId } = await placedOrder();
    const body = JSON.stringify({
      type: 'orders.payment.succeeded',
      data: {
        orderId: providerOrderId,
        phase: 'delivery',
        payment: { status: 'completed', currency: 'usdc' },
      },
    });
    const id = `msg_${randomUUID().replace(/-/g, '')}`;
    const statuses = await Promise.all(
      Array.from({ length: 5 }, () => post(body, sign(body, id)).then((r) => r.status)),
    );
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(await eventsOf('provider-webhook', id)).toEqual(['ProviderWebhookReceived']);
    await eventually(
      () => orderOf(client, orderId),
      (r) => r.json.status === 'payment_confirmed',
    );
    expect(await eventsOf('order', orderId)).toEqual(['OrderCreated', 'OrderPaymentConfirmed']);
  });

  it('ignores out-of-order events: once delivered, a late payment or delivery event changes nothing', async () => {
    const { client, orderId, providerOrderId } = await placedOrder();
    stack.provider.approve(providerOrderId, { webhookOrder: 'reversed' });
    await eventually(
      () => orderOf(client, orderId),
      (r) => r.json.status === 'delivered',
    );
    await stack.provider.waitForDeliveries();
    await new Promise((r) => setTimeout(r, 300));
    expect((await orderOf(client, orderId)).json.status).toBe('delivered');
    expect(await eventsOf('order', orderId)).toEqual(['OrderCreated', 'OrderDelivered']);
  });

  it('cancels on payment failure and puts the item back in the cart', async () => {
    const { client, orderId, providerOrderId } = await placedOrder();
    stack.provider.fail(providerOrderId, 'payment', 'card declined');
    const cancelled = await eventually(
      () => orderOf(client, orderId),
      (r) => r.json.status === 'cancelled',
    );
    expect(cancelled.json.status).toBe('cancelled');
    const cart = await client.request('GET', '/api/cart');
    expect((cart.json.items as { productId: string }[]).map((i) => i.productId)).toEqual([
      product(9).productId,
    ]);
  });

  it("lists each order's timeline: every status reached in order, a cancellation with its reason", async () => {
    const at = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/);
    const delivered = await placedOrder();
    stack.provider.approve(delivered.providerOrderId);
    const { json } = await eventually(
      () => orderOf(delivered.client, delivered.orderId),
      (r) => r.json.status === 'delivered',
    );
    expect(json.timeline).toEqual([
      { status: 'awaiting_approval', at },
      { status: 'payment_confirmed', at },
      { status: 'in_progress', at },
      { status: 'delivered', at },
    ]);

    const declined = await placedOrder();
    stack.provider.fail(declined.providerOrderId, 'payment', 'card declined');
    await eventually(
      () => orderOf(declined.client, declined.orderId),
      (r) => r.json.status === 'cancelled',
    );
    const { orders } = (await declined.client.request('GET', '/api/orders')).json as {
      orders: { orderId: string; timeline: unknown }[];
    };
    expect(orders.find((order) => order.orderId === declined.orderId)?.timeline).toEqual([
      { status: 'awaiting_approval', at },
      { status: 'cancelled', at, reason: expect.stringContaining('card declined') },
    ]);
  });

  it('records a verified delivery it cannot interpret, answers 200, and parks it for the operator', async () => {
    const { providerOrderId } = await placedOrder();
    const bodies = [
      JSON.stringify({
        type: 'orders.payment.succeeded',
        data: { orderId: providerOrderId, state: 'new-shape' },
      }),
      JSON.stringify({ type: 'orders.delivery.completed', payload: [providerOrderId] }),
      JSON.stringify([{ type: 'orders.payment.failed' }]),
    ];
    const ids = bodies.map(() => `msg_${randomUUID().replace(/-/g, '')}`);
    const headersOf = (index: number) => sign(bodies[index]!, ids[index]!);
    for (const [index, body] of bodies.entries()) {
      const res = await post(body, headersOf(index));
      expect([res.status, await res.json()]).toEqual([200, { received: true, duplicate: false }]);
      const again = await post(body, headersOf(index));
      expect([again.status, await again.json()]).toEqual([200, { received: true, duplicate: true }]);
      const recorded = (await store.load('provider-webhook', ids[index]!)).events;
      expect(recorded.map((e) => [e.type, (e.data as { body?: string }).body])).toEqual([
        ['ProviderWebhookUnrecognized', body],
      ]);
    }
    const parked = await eventually(
      () =>
        database.db
          .withSchema(`${stack.env.schema}_reactions`)
          .selectFrom('parked_reactions' as never)
          .select(['reaction' as never, 'subject' as never, 'error' as never])
          .execute() as Promise<{ reaction: string; subject: string; error: string }[]>,
      (rows) => ids.every((id) => rows.some((r) => r.subject.endsWith(id))),
    );
    for (const id of ids) {
      expect(parked.find((r) => r.subject.endsWith(id))).toMatchObject({
        reaction: 'provider-webhooks',
        error: expect.stringMatching(/cannot interpret/),
      });
    }
    const metrics = await (await fetch(`${stack.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/reaction_parked_events\{reaction="provider-webhooks"[^}]*\} [3-9]/);
  });

  it('records a signed body that is not JSON, whatever its content type, answers 200 once and parks it', async () => {
    const deliveries = [
      ['application/json', '{"type": "orders.payment.succeeded", "data": '],
      ['text/plain', 'orders.payment.succeeded ord_123'],
      ['application/xml', '<event type="orders.payment.succeeded"/>'],
      ['application/x-www-form-urlencoded', 'type=orders.payment.succeeded&orderId=ord_123'],
      ['application/octet-stream', 'caf\u00e9 \u0000 bytes'],
      ['application/json; charset=utf-8', 'null'],
    ] as const;
    const ids = deliveries.map(() => `msg_${randomUUID().replace(/-/g, '')}`);
    for (const [index, [contentType, body]] of deliveries.entries()) {
      const headers = { ...sign(body, ids[index]!), 'content-type': contentType };
      const first = await post(body, headers);
      expect([contentType, first.status, await first.json()]).toEqual([
        contentType,
        200,
        { received: true, duplicate: false },
      ]);
      const again = await post(body, headers);
      expect([contentType, again.status, await again.json()]).toEqual([
        contentType,
        200,
        { received: true, duplicate: true },
      ]);
      const recorded = (await store.load('provider-webhook', ids[index]!)).events;
      expect(recorded.map((e) => [e.type, e.data])).toEqual([
        [
          'ProviderWebhookUnrecognized',
          {
            body,
            bodyBytes: Buffer.byteLength(body),
            bodySha256: createHash('sha256').update(body).digest('hex'),
            reason: expect.any(String),
          },
        ],
      ]);
    }
    const parked = await eventually(
      () =>
        database.db
          .withSchema(`${stack.env.schema}_reactions`)
          .selectFrom('parked_reactions' as never)
          .select(['reaction' as never, 'subject' as never])
          .execute() as Promise<{ reaction: string; subject: string }[]>,
      (rows) => ids.every((id) => rows.some((r) => r.subject.endsWith(id))),
    );
    for (const id of ids) {
      expect(parked.find((r) => r.subject.endsWith(id))).toMatchObject({ reaction: 'provider-webhooks' });
    }
  });

  it('refuses a non-JSON body that is not signed with 401, and one over the body limit with 413', async () => {
    const id = `msg_${randomUUID().replace(/-/g, '')}`;
    const body = 'not json at all';
    const unsigned = await post(body, { 'content-type': 'text/plain' });
    expect([unsigned.status, await unsigned.json()]).toMatchObject([401, { code: 'UNAUTHORIZED' }]);
    const forged = await post(body, { ...sign('something else', id), 'content-type': 'text/plain' });
    expect([forged.status, await forged.json()]).toMatchObject([401, { code: 'UNAUTHORIZED' }]);
    const huge = 'x'.repeat(1024 * 1024 + 1);
    const oversized = await post(huge, { ...sign(huge, id), 'content-type': 'application/octet-stream' });
    expect([oversized.status, await oversized.json()]).toMatchObject([413, { code: expect.any(String) }]);
    expect(await eventsOf('provider-webhook', id)).toEqual([]);
  });

  it('keeps every other route reading JSON only: malformed JSON is 400, other media types 415', async () => {
    const client = new TestClient(stack.url);
    const malformed = await client.request('POST', '/api/dev/login', '{"email": ');
    expect([malformed.status, malformed.json]).toMatchObject([400, { code: 'BAD_REQUEST' }]);
    for (const contentType of [
      'application/xml',
      'application/octet-stream',
      'application/x-www-form-urlencoded',
    ]) {
      const res = await client.request('POST', '/api/dev/login', '<email/>', { 'content-type': contentType });
      expect([contentType, res.status, res.json]).toMatchObject([
        contentType,
        415,
        { code: 'UNSUPPORTED_MEDIA_TYPE' },
      ]);
    }
    const text = await client.request('POST', '/api/dev/login', 'ada@example.com', {
      'content-type': 'text/plain',
    });
    expect([text.status, text.json]).toMatchObject([400, { code: 'VALIDATION_ERROR' }]);
    const json = await client.request('POST', '/api/dev/login', { email: 'ada@example.com' });
    expect(json.status).toBe(200);
  });

  it('records a verified delivery whose id cannot name a subject under the digest of that id', async () => {
    const { client, orderId, providerOrderId } = await placedOrder();
    const body = JSON.stringify({
      type: 'orders.payment.succeeded',
      data: {
        orderId: providerOrderId,
        phase: 'delivery',
        payment: { status: 'completed', currency: 'usdc' },
      },
    });
    const id = `msg.${randomUUID()}.with dots`;
    const statuses = [];
    for (let i = 0; i < 2; i++) statuses.push(await post(body, sign(body, id)).then((r) => r.json()));
    expect(statuses).toEqual([
      { received: true, duplicate: false },
      { received: true, duplicate: true },
    ]);
    const digest = `sha256_${createHash('sha256').update(id).digest('hex')}`;
    expect(await eventsOf('provider-webhook', digest)).toEqual(['ProviderWebhookReceived']);
    await eventually(
      () => orderOf(client, orderId),
      (r) => r.json.status === 'payment_confirmed',
    );
  });

  it('answers 503 WEBHOOK_NOT_CONFIGURED when the secret is unset', async () => {
    const unconfigured = await stack.startGateway({ PROVIDER_WEBHOOK_SECRET: '' });
    const res = await fetch(`${unconfigured}/api/webhooks/provider`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: 'WEBHOOK_NOT_CONFIGURED' });
  });

  it('rebuilds the orders projection with identical rows', async () => {
    const last = await store.lastStreamSequence();
    await stack.projector.runners.find((r) => r.name === 'orders')!.caughtUp(last);
    const rebuilt = `${stack.env.schema}_orders_rebuilt`;
    await rebuildProjections({
      store,
      db: database.db,
      schema: rebuilt,
      projections: [ordersProjection()],
      migrations: readModelMigrations,
      untilSequence: last,
    });
    const live = await tableChecksums(database.db, stack.env.schema, ['orders']);
    expect(live.orders!.rows).toBeGreaterThan(5);
    expect(await tableChecksums(database.db, rebuilt, ['orders'])).toEqual(live);
  });
});
