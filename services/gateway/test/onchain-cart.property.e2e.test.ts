import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CartContractClient, createSuiClient } from '@shop/chain';
import { startSuiSandbox, SuiSandbox } from '@shop/sandbox-sui';
import { ChainIndexerHost } from '../src/onchain/chain-indexer-host';
import { eventually, startTestStack, TestClient, TestStack } from './stack';

/** Scenarios per CI run; ONCHAIN_PROPERTY_RUNS=200 for a longer search. */
const runs = Number(process.env.ONCHAIN_PROPERTY_RUNS ?? 20);
const tally = { added: 0, deleted: 0, ordered: 0, paid: 0, relayerFaults: 0, indexerStops: 0 };
const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
let sui: SuiSandbox;
let stack: TestStack;
let chain: CartContractClient;

beforeAll(async () => {
  sui = await startSuiSandbox({ port: 0 });
  stack = await startTestStack('onchain-property', {
    CART_SERVICE: 'onchain',
    CHAIN_RPC_URL: sui.url,
    CHAIN_CONTRACT_ADDRESS: sui.packageId,
    CHAIN_CART_REGISTRY_ID: sui.registryId,
    CHAIN_RELAYER_PRIVATE_KEY: sui.relayer.secretKey!,
    PROVIDER_WEBHOOK_SECRET: webhookSecret,
    INDEXER_POLL_INTERVAL_MS: '100',
  });
  stack.provider.setWebhookTarget(`${stack.url}/api/webhooks/provider`, webhookSecret);
  chain = new CartContractClient({
    client: createSuiClient({ url: sui.url }),
    packageId: sui.packageId,
    registryId: sui.registryId,
    relayer: sui.relayer.secretKey!,
  });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await sui?.close();
});

type Fault = 'unavailable' | 'disconnect' | 'lost-response';
type Op =
  | { kind: 'add'; product: number }
  | { kind: 'delete'; pick: number }
  | { kind: 'checkout'; pick: number }
  | { kind: 'stopIndexer' }
  | { kind: 'startIndexer' }
  | { kind: 'indexerLatency'; ms: number }
  | { kind: 'relayerFault'; mode: Fault; count: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('add' as const), product: fc.nat(3) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat(9) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('checkout' as const), pick: fc.nat(9) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('stopIndexer' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('startIndexer' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('indexerLatency' as const), ms: fc.constantFrom(0, 300, 1500) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('relayerFault' as const),
      mode: fc.constantFrom<Fault>('unavailable', 'disconnect', 'lost-response'),
      count: fc.integer({ min: 1, max: 3 }),
    }),
  },
);

const product = (n: number) => ({
  productId: `B0PROP${n}`,
  productName: `Property tee ${n}`,
  price: 1500,
  image: `https://images.example.com/p${n}.jpg`,
  productUrl: `https://shop.example.com/dp/p${n}`,
  retailer: 'Example',
});

async function shopper() {
  const client = new TestClient(stack.url);
  const userId = await client.onboard(`${randomUUID().slice(0, 8)}@example.com`);
  const profile = await eventually(
    () => client.request('GET', '/api/auth/profile'),
    (r) => r.json.walletStatus === 'active',
  );
  stack.provider.fund(profile.json.evmAddress as string, '1000');
  expect((await client.request('POST', '/api/cart/init')).status).toBe(200);
  return { client, userId, address: profile.json.walletAddress as string };
}

const indexer = () => stack.apps[0]!.get(ChainIndexerHost);

/** Every OrderCreated the contract emitted, by order id. */
async function contractCheckouts(): Promise<Map<string, string[]>> {
  const byOrder = new Map<string, string[]>();
  for (let cursor = null, more = true; more;) {
    const page = await chain.queryContractEvents(cursor);
    for (const e of page.events)
      if (e.kind === 'OrderCreated') byOrder.set(e.orderId, [...(byOrder.get(e.orderId) ?? []), e.txDigest]);
    cursor = page.nextCursor;
    more = page.hasNextPage;
  }
  return byOrder;
}

interface Settled {
  chainObjects: string[];
  expectedObjects: (string | null)[];
  paid: { orderId: string; txHash: string | null; checkouts: string[] }[];
}

/**
 * What the chain's cart holds, against what the read model says it should: exactly the active
 * items. A deleted or ordered item's object leaves the chain once its order (if any) is done with
 * it, and every order here is delivered and checked out on chain before the run settles.
 */
async function observe(userId: string, address: string): Promise<Settled> {
  const schema = stack.env.schema;
  const items = await stack.database.pool.query<{ on_chain_object_id: string | null }>(
    `SELECT on_chain_object_id FROM ${schema}.cart_items WHERE user_id = $1 AND deleted_at IS NULL`,
    [userId],
  );
  const orders = await stack.database.pool.query<{ order_id: string; tx_hash: string | null }>(
    `SELECT order_id, tx_hash FROM ${schema}.orders
      WHERE user_id = $1 AND type = 'checkout' AND status IN ('payment_confirmed', 'in_progress', 'delivered')`,
    [userId],
  );
  const checkouts = await contractCheckouts();
  const cart = sui.carts().find((c) => c.user === address);
  return {
    chainObjects: (cart?.items.map((i) => i.itemId) ?? []).sort(),
    expectedObjects: items.rows.map((r) => r.on_chain_object_id).sort(),
    paid: orders.rows.map((o) => ({
      orderId: o.order_id,
      txHash: o.tx_hash,
      checkouts: checkouts.get(o.order_id) ?? [],
    })),
  };
}

const converged = (s: Settled) =>
  JSON.stringify(s.chainObjects) === JSON.stringify(s.expectedObjects) &&
  s.paid.every((o) => o.checkouts.length === 1 && o.txHash === o.checkouts[0]);

async function run(ops: Op[]): Promise<void> {
  const { client, userId, address } = await shopper();
  const approved = new Set<string>();
  const listed = async () =>
    ((await client.request('GET', '/api/cart')).json.items as { id: string }[]).map((i) => i.id);
  try {
    for (const step of ops) {
      switch (step.kind) {
        case 'add': {
          const res = await client.request('POST', '/api/cart', product(step.product));
          expect([201, 409, 400, 502]).toContain(res.status);
          if (res.status === 201) tally.added += 1;
          break;
        }
        case 'delete': {
          const ids = await listed();
          if (ids.length === 0) break;
          const itemId = ids[step.pick % ids.length]!;
          const res = await client.request('DELETE', `/api/cart/${itemId}`);
          // The spec gives the route 204 and 404 only, whatever the chain is doing (404: an order's
          // payment or the chain took the item out after the listing was read).
          expect([204, 404]).toContain(res.status);
          if (res.status === 204) tally.deleted += 1;
          break;
        }
        case 'checkout': {
          const ids = await listed();
          if (ids.length === 0) break;
          const order = await client.request('POST', '/api/checkout', {
            cartItemId: ids[step.pick % ids.length],
          });
          expect([201, 409, 404]).toContain(order.status);
          // An item whose checkout is open answers with that order: it is approved once.
          if (order.status === 201 && !approved.has(order.json.orderId as string)) {
            tally.ordered += 1;
            approved.add(order.json.orderId as string);
            stack.provider.approve(order.json.providerOrderId as string);
          }
          break;
        }
        case 'stopIndexer':
          tally.indexerStops += 1;
          await indexer().stop();
          break;
        case 'startIndexer':
          await indexer().start();
          break;
        case 'indexerLatency':
          sui.setLatency(step.ms, { method: 'suix_queryEvents' });
          break;
        case 'relayerFault':
          tally.relayerFaults += step.count;
          sui.failNext(step.count, { method: 'sui_executeTransactionBlock', mode: step.mode });
          break;
      }
    }
  } finally {
    sui.clearFaults();
    await indexer().start();
  }
  const settled = await eventually(
    () => observe(userId, address),
    (s) => converged(s) && [...approved].every((id) => s.paid.some((o) => o.orderId === id)),
    30_000,
  );
  expect(settled.paid.map((o) => o.orderId).sort()).toEqual([...approved].sort());
  expect(settled.chainObjects).toEqual(settled.expectedObjects);
  expect(settled.expectedObjects).not.toContain(null);
  tally.paid += settled.paid.length;
  for (const order of settled.paid) {
    expect(order.checkouts).toHaveLength(1);
    expect(order.txHash).toBe(order.checkouts[0]);
  }
}

describe('on-chain cart operations against the Sui stand-in (property)', () => {
  it(
    'leave the read model and the contract cart with the same items, and each paid order checked out once on chain',
    async () => {
      let scenarios = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 10 }), async (ops) => {
          scenarios += 1;
          await run(ops);
        }),
        { numRuns: runs, endOnFailure: true },
      );
      console.info(`on-chain cart property: ${scenarios} scenarios`, tally);
      expect(scenarios).toBe(runs);
    },
    60_000 + runs * 20_000,
  );
});
