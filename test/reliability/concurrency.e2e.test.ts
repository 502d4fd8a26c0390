import { randomUUID } from 'node:crypto';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { sql } from 'kysely';
import { Webhook } from 'svix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, searchEnv } from '@shop/config';
import { createLogger } from '@shop/logging';
import { ProviderClient } from '@shop/provider';
import { startSuiSandbox, SuiSandbox } from '@shop/sandbox-sui';
import { startSearchService } from '../../services/search/src/bootstrap';
import {
  Client,
  depositSecret,
  figures,
  product,
  send,
  Shopper,
  Stack,
  waitForProjections,
  webhookSecret,
  writeFigures,
} from './harness';

/**
 * Many users and many parallel requests per user, across two gateway instances: the cart's
 * invariants, one order per concurrently checked-out item, one credit per deposit digest
 * however many verifications and confirmations race, and webhook storms (duplicates, any order)
 * applied once. Every check reads the stream and the read model, not only the answers.
 */
const usersInCartStorm = Number(process.env.RELIABILITY_CART_USERS ?? 10);
const requestsPerUser = Number(process.env.RELIABILITY_CART_REQUESTS ?? 40);

let sui: SuiSandbox;
let stack: Stack;
let second: string;
let searchUrl: string;
let closeSearch: () => Promise<void>;
let USDC: string;
const merchant = Ed25519Keypair.generate().toSuiAddress();

beforeAll(async () => {
  sui = await startSuiSandbox({ port: 0 });
  USDC = `${sui.paymentPackageId}::usdc::USDC`;
  stack = await Stack.start('concurrency', {
    vars: {
      CHAIN_RPC_URL: sui.url,
      CHAIN_PAYMENT_PACKAGE_ID: sui.paymentPackageId,
      CHAIN_COIN_TYPE: USDC,
    },
  });
  second = await stack.startGateway();
  const config = loadConfig(searchEnv, {
    ...stack.serviceEnv(),
    PORT: '0',
    SEARCH_SCHEMA: `${stack.env.schema}_search`,
    CHAIN_RPC_URL: sui.url,
    CHAIN_MERCHANT_ADDRESS: merchant,
    CHAIN_COIN_TYPE: USDC,
    CHAIN_PAYMENT_AMOUNT_MIST: '1000000',
    BACKEND_URL: stack.url,
  });
  const search = await startSearchService(config, createLogger('search', 'silent'), { rpcGracePeriodMs: 0 });
  searchUrl = search.url;
  closeSearch = () => search.app.close();
}, 90_000);
afterAll(async () => {
  writeFigures('concurrency', { usersInCartStorm, requestsPerUser });
  await closeSearch?.();
  await stack?.stop();
  await sui?.close();
});

/** The same user on the other gateway instance. */
function onSecond(shopper: Shopper): Client {
  const client = new Client(second);
  client.setCookie('provider-jwt', shopper.client.cookie('provider-jwt')!);
  return client;
}

function broken(what: string, detail: unknown): string {
  figures.invariantsBroken++;
  return `${what}: ${JSON.stringify(detail)}`;
}

describe('cart under parallel load', () => {
  it('keeps at most 10 items, unique product/size/color, each add and removal applied once', async () => {
    const shoppers = await Promise.all(
      Array.from({ length: usersInCartStorm }, () => stack.shopper({ wallet: false })),
    );
    const problems: string[] = [];
    const allowed = new Set([
      '201',
      '204',
      '400 CartFullError',
      '409 CartDuplicateItemError',
      '404 CartItemNotFoundError',
      '409 CONFLICT',
    ]);

    await Promise.all(
      shoppers.map(async (shopper) => {
        const clients = [shopper.client, onSecond(shopper)];
        const seen: string[] = [];
        const keys: { key: string; body: ReturnType<typeof product> }[] = [];
        const created = new Map<string, Set<string>>(); // idempotency key -> item ids answered
        const removed = new Map<string, number>(); // item id -> 204 answers
        await Promise.all(
          Array.from({ length: requestsPerUser }, async (_, i) => {
            const client = clients[i % 2]!;
            const roll = (i * 7919 + shopper.userId.charCodeAt(0)) % 10;
            let res;
            if (roll < 5 || seen.length === 0) {
              // 14 products for a 10-item cart: duplicates and a full cart are both certain.
              const body = { ...product(`storm-${i % 14}`), size: i % 3 === 0 ? 'M' : 'Default' };
              const entry =
                roll < 2 && keys.length > 0 ? keys[i % keys.length]! : { key: randomUUID(), body };
              if (!keys.includes(entry)) keys.push(entry);
              res = await client.request('POST', '/api/cart', entry.body, { 'idempotency-key': entry.key });
              if (res.status === 201) {
                seen.push(res.json.id as string);
                created.set(entry.key, (created.get(entry.key) ?? new Set()).add(res.json.id as string));
              }
            } else {
              const id = seen[(i * 31) % seen.length]!;
              res = await client.request('DELETE', `/api/cart/${id}`);
              if (res.status === 204) removed.set(id, (removed.get(id) ?? 0) + 1);
            }
            const answer = res.status < 300 ? String(res.status) : `${res.status} ${res.json?.code}`;
            if (!allowed.has(answer)) problems.push(broken('unexpected answer', [answer, res.text]));
          }),
        );
        for (const [key, ids] of created)
          if (ids.size > 1) problems.push(broken('one key, several items', { key, ids: [...ids] }));
        for (const [id, n] of removed) if (n > 1) problems.push(broken('removed twice', id));
        (shopper as Shopper & { answered?: Set<string> }).answered = new Set(seen);
      }),
    );

    // The stream: fold every user's cart and check the invariants at every step.
    const store = await stack.store();
    const last = await store.lastStreamSequence();
    await waitForProjections(stack.database, stack.env.schema, last);
    for (const shopper of shoppers) {
      const { events } = await store.load('cart', shopper.userId);
      const active = new Map<string, string>();
      const everAdded = new Set<string>();
      for (const event of events) {
        const data = event.data as Record<string, string>;
        if (event.type === 'ItemAdded') {
          if (everAdded.has(data.itemId!)) problems.push(broken('item added twice', data.itemId));
          everAdded.add(data.itemId!);
          const tuple = `${data.productId}|${data.size}|${data.color}`;
          if ([...active.values()].includes(tuple)) problems.push(broken('duplicate active tuple', tuple));
          active.set(data.itemId!, tuple);
          if (active.size > 10) problems.push(broken('more than 10 items', active.size));
        } else if (event.type === 'ItemRemoved') {
          if (!active.delete(data.itemId!)) problems.push(broken('removed an inactive item', data.itemId));
        }
      }
      const answered = (shopper as Shopper & { answered?: Set<string> }).answered!;
      for (const id of answered) if (!everAdded.has(id)) problems.push(broken('201 without event', id));
      const { rows } = await sql<{ item_id: string }>`
        SELECT item_id FROM ${sql.table(`${stack.env.schema}.cart_items`)}
         WHERE user_id = ${shopper.userId} AND deleted_at IS NULL`.execute(stack.database.db);
      const live = new Set(rows.map((r) => r.item_id));
      if (JSON.stringify([...live].sort()) !== JSON.stringify([...active.keys()].sort()))
        problems.push(
          broken('read model differs from the stream', { live: [...live], stream: [...active.keys()] }),
        );
      const listed = await shopper.client.request('GET', '/api/cart');
      if ((listed.json.items as unknown[]).length !== active.size)
        problems.push(broken('GET /api/cart differs from the stream', listed.json.items));
    }
    expect(problems).toEqual([]);
  }, 120_000);
});

describe('concurrent checkouts of one item', () => {
  it('creates one order and one provider order per item, whichever gateway each request hits', async () => {
    const shoppers = await Promise.all(Array.from({ length: 4 }, () => stack.shopper({ funds: '500' })));
    const before = stack.provider.requests('orders.create').length;
    const outcomes = await Promise.all(
      shoppers.map(async (shopper) => {
        const item = (await shopper.client.request('POST', '/api/cart', product(`one-${randomUUID()}`))).json
          .id as string;
        const clients = [shopper.client, onSecond(shopper)];
        const answers = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            clients[i % 2]!.request('POST', '/api/checkout', { cartItemId: item }),
          ),
        );
        return { shopper, item, answers };
      }),
    );
    const store = await stack.store();
    for (const { item, answers } of outcomes) {
      const ok = answers.filter((a) => a.status === 201);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      expect(new Set(ok.map((a) => a.json.orderId)).size).toBe(1);
      for (const a of answers) expect([201, 409]).toContain(a.status);
      const orders = (await store.load('order', ok[0]!.json.orderId as string)).events.filter(
        (e) => e.type === 'OrderCreated',
      );
      expect(orders).toHaveLength(1);
      expect((orders[0]!.data as { cartItemId: string }).cartItemId).toBe(item);
    }
    const created = stack.provider.requests('orders.create').slice(before);
    expect(new Set(created.map((r) => r.idempotencyKey)).size).toBe(created.length);
    expect(created).toHaveLength(outcomes.length);
  }, 60_000);
});

describe('concurrent deposit verifications and confirmations of one digest', () => {
  const balanceOf = async (evm: string) => {
    const provider = new ProviderClient({
      baseUrl: stack.provider.url,
      apiKey: stack.provider.apiKey,
      timeoutMs: 5000,
    });
    const balances = await provider.getBalances(evm, { tokens: ['usdc'], chains: ['base-sepolia'] });
    return Number(balances.find((b) => b.symbol === 'usdc')?.amount ?? '0');
  };

  it('credits a merchant payment once under racing search-service verifications and direct confirmations', async () => {
    const shopper = await stack.shopper({ funds: '0' });
    const digest = sui.createPayment({
      payer: shopper.sui!,
      receiver: merchant,
      amountMist: 3_000_000n,
      coinType: USDC,
      nonce: randomUUID(),
    });
    const before = await balanceOf(shopper.evm!);
    const verify = () =>
      new Client(searchUrl).request('POST', '/api/payment/verify', {
        txHash: digest,
        userId: shopper.userId,
      });
    const confirm = (url: string) =>
      new Client(url).request(
        'POST',
        `/api/deposit/${shopper.userId}/${shopper.sui}/confirm`,
        { amount: '3000000', transactionHash: digest, network: 'testnet', currency: USDC },
        { 'x-webhook-secret': depositSecret },
      );
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, verify),
      ...Array.from({ length: 4 }, (_, i) => confirm(i % 2 ? second : stack.url)),
    ]);
    for (const a of answers.slice(4)) expect([200, 409]).toContain(a.status);
    for (const a of answers.slice(0, 4)) expect(a.status).toBeLessThan(500);
    const store = await stack.store();
    const credited = (await store.load('deposit', digest)).events.filter((e) => e.type === 'DepositCredited');
    expect(credited).toHaveLength(1);
    expect((await balanceOf(shopper.evm!)) - before).toBeCloseTo(3, 6);
  }, 60_000);

  it('credits a receipt to the user once under racing /api/deposit/verify calls on both gateways', async () => {
    const shopper = await stack.shopper({ funds: '0' });
    const nonce = randomUUID();
    const digest = sui.createPayment({
      payer: Ed25519Keypair.generate().toSuiAddress(),
      receiver: shopper.sui!,
      amountMist: 4_000_000n,
      coinType: USDC,
      nonce,
    });
    const before = await balanceOf(shopper.evm!);
    const clients = [shopper.client, onSecond(shopper)];
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        clients[i % 2]!.request('POST', '/api/deposit/verify', {
          txDigest: digest,
          nonce,
          amount: '4000000',
          coinType: USDC,
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(
      answers.filter((a) => a.status === 409 && a.json.error === 'Deposit already processed'),
    ).toHaveLength(5);
    const store = await stack.store();
    const credited = (await store.load('deposit', digest)).events.filter((e) => e.type === 'DepositCredited');
    expect(credited).toHaveLength(1);
    expect((await balanceOf(shopper.evm!)) - before).toBeCloseTo(4, 6);
  }, 60_000);
});

describe('webhook storms', () => {
  it('applies duplicated, reordered deliveries across two gateways once each, and status only moves forward', async () => {
    const shoppers = await Promise.all(Array.from({ length: 5 }, () => stack.shopper({ funds: '500' })));
    const orders = await Promise.all(
      shoppers.map(async (shopper) => {
        const item = (await shopper.client.request('POST', '/api/cart', product(`hook-${randomUUID()}`))).json
          .id as string;
        const res = await shopper.client.request('POST', '/api/checkout', { cartItemId: item });
        expect(res.status).toBe(201);
        return {
          shopper,
          item,
          orderId: res.json.orderId as string,
          providerOrderId: res.json.providerOrderId as string,
        };
      }),
    );
    const signer = new Webhook(webhookSecret);
    const deliveries = orders.flatMap(({ providerOrderId }) => {
      const steps: [string, string, string][] = [
        ['orders.payment.succeeded', 'delivery', 'completed'],
        ['orders.delivery.initiated', 'delivery', 'completed'],
        ['orders.delivery.completed', 'completed', 'completed'],
      ];
      return steps.map(([type, phase, payment]) => ({
        id: `msg_${randomUUID().replace(/-/g, '')}`,
        body: JSON.stringify({
          type,
          data: { orderId: providerOrderId, phase, payment: { status: payment, currency: 'usdc' } },
        }),
      }));
    });
    const statuses: number[] = [];
    const sendAll = async (batch: { id: string; body: string }[]) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 10 }, async (_, w) => {
          while (next < batch.length) {
            const d = batch[next++]!;
            const at = new Date();
            const res = await send(`${w % 2 ? second : stack.url}/api/webhooks/provider`, {
              method: 'POST',
              body: d.body,
              headers: {
                'content-type': 'application/json',
                'svix-id': d.id,
                'svix-timestamp': String(Math.floor(at.getTime() / 1000)),
                'svix-signature': signer.sign(d.id, at, d.body),
              },
            });
            statuses.push(res.status);
            await res.arrayBuffer();
          }
        }),
      );
    };
    // Every delivery three times, shuffled, ten in flight at once, alternating gateways.
    await sendAll(deliveries.flatMap((d) => [d, d, d]).sort(() => Math.random() - 0.5));
    expect(statuses.every((s) => s === 200)).toBe(true);

    const store = await stack.store();
    for (const d of deliveries) {
      const recorded = (await store.load('provider-webhook', d.id)).events;
      expect(recorded.map((e) => e.type)).toEqual(['ProviderWebhookReceived']);
    }
    for (const { shopper, item, orderId } of orders) {
      // Reactions turn deliveries into order events asynchronously: wait for the end state.
      let status = '';
      for (let i = 0; i < 150 && status !== 'delivered'; i++) {
        status = (await shopper.client.request('GET', `/api/orders/${orderId}`)).json.status as string;
        if (status !== 'delivered') await new Promise((r) => setTimeout(r, 100));
      }
      const types = (await store.load('order', orderId)).events.map((e) => e.type);
      expect(status).toBe('delivered');
      expect(types[0]).toBe('OrderCreated');
      expect(new Set(types).size, types.join()).toBe(types.length); // nothing applied twice
      expect(types).toContain('OrderDelivered');
      expect(types).not.toContain('OrderCancelled');
      // Whatever order the deliveries came in, the ordered item left the cart exactly once.
      let removals = 0;
      for (let i = 0; i < 50; i++) {
        removals = (await store.load('cart', shopper.userId)).events.filter(
          (e) => e.type === 'ItemRemoved' && (e.data as { itemId: string }).itemId === item,
        ).length;
        if (removals > 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      if (removals !== 1) figures.invariantsBroken++;
      expect(removals).toBe(1);
      const cart = await shopper.client.request('GET', '/api/cart');
      expect((cart.json.items as { id: string }[]).map((i) => i.id)).not.toContain(item);
    }

    // A late payment failure after delivery, three times: recorded once, and changes nothing.
    const late = orders[0]!;
    const failure = {
      id: `msg_${randomUUID().replace(/-/g, '')}`,
      body: JSON.stringify({
        type: 'orders.payment.failed',
        data: {
          orderId: late.providerOrderId,
          phase: 'failed',
          payment: { status: 'failed', currency: 'usdc' },
        },
      }),
    };
    await sendAll([failure, failure, failure]);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect((await store.load('provider-webhook', failure.id)).events).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 500));
    expect((await late.shopper.client.request('GET', `/api/orders/${late.orderId}`)).json.status).toBe(
      'delivered',
    );
    expect((await store.load('order', late.orderId)).events.map((e) => e.type)).not.toContain(
      'OrderCancelled',
    );
    const restored = (await store.load('cart', late.shopper.userId)).events.filter(
      (e) => e.type === 'ItemRestored',
    );
    expect(restored).toEqual([]);
  }, 90_000);
});
