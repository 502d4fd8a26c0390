import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildProjections } from '@shop/projections';
import { readModelMigrations, readModelProjections } from '@shop/read-models';
import { startSuiSandbox, SuiSandbox } from '@shop/sandbox-sui';
import { SESSION_COOKIE } from '../src/auth/session-cookies';
import { eventually, startTestStack, TestClient, TestStack } from './stack';

/**
 * An order carries `tx_hash`, the on-chain digest the spec keeps on it: a deposit's transaction, or the
 * contract checkout of a checkout order (on-chain cart mode), null until there is one. It comes from
 * the events, so a read model rebuilt from the stream answers the same.
 */
const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
let sui: SuiSandbox;
let stack: TestStack;
let USDC: string;

beforeAll(async () => {
  sui = await startSuiSandbox({ port: 0 });
  USDC = `${sui.paymentPackageId}::usdc::USDC`;
  stack = await startTestStack('ordertxhash', {
    CART_SERVICE: 'onchain',
    CHAIN_RPC_URL: sui.url,
    CHAIN_CONTRACT_ADDRESS: sui.packageId,
    CHAIN_CART_REGISTRY_ID: sui.registryId,
    CHAIN_RELAYER_PRIVATE_KEY: sui.relayer.secretKey!,
    CHAIN_PAYMENT_PACKAGE_ID: sui.paymentPackageId,
    CHAIN_COIN_TYPE: USDC,
    PROVIDER_WEBHOOK_SECRET: webhookSecret,
    INDEXER_POLL_INTERVAL_MS: '100',
  });
  stack.provider.setWebhookTarget(`${stack.url}/api/webhooks/provider`, webhookSecret);
});
afterAll(async () => {
  await stack?.stop();
  await sui?.close();
});

type Order = { orderId: string; type: string; tx_hash: string | null };

async function shopper() {
  const client = new TestClient(stack.url);
  await client.onboard(`${randomUUID().slice(0, 8)}@example.com`);
  const profile = await eventually(
    () => client.request('GET', '/api/auth/profile'),
    (r) => r.json.walletStatus === 'active',
  );
  expect(profile.json.walletStatus).toBe('active');
  return { client, sui: profile.json.walletAddress as string, evm: profile.json.evmAddress as string };
}

const listed = async (client: TestClient, query = '') =>
  (await client.request('GET', `/api/orders${query}`)).json.orders as Order[];
const one = async (client: TestClient, orderId: string) =>
  (await client.request('GET', `/api/orders/${orderId}`)).json as Order;

describe('tx_hash on orders', () => {
  it("carries a deposit's digest and an on-chain checkout's digest, null before, in the list and in one order, and the same after a rebuild", async () => {
    const user = await shopper();
    stack.provider.fund(user.evm, '100');

    // A deposit: its order's tx_hash is the digest that paid it.
    const nonce = randomUUID();
    const deposit = sui.createPayment({
      payer: user.sui,
      receiver: user.sui,
      amountMist: 2_000_000n,
      coinType: USDC,
      nonce,
    });
    const verified = await user.client.request('POST', '/api/deposit/verify', {
      txDigest: deposit,
      nonce,
      amount: '2000000',
      coinType: USDC,
    });
    expect(verified.status).toBe(200);
    const [depositOrder] = await eventually(
      () => listed(user.client, '?type=deposit'),
      (orders) => orders.length === 1,
    );
    expect(depositOrder).toMatchObject({ type: 'deposit', tx_hash: deposit });
    expect(await one(user.client, depositOrder!.orderId)).toMatchObject({ tx_hash: deposit });

    // A checkout: null until the contract's checkout records it, then that transaction's digest.
    expect((await user.client.request('POST', '/api/cart/init')).status).toBe(200);
    const item = await user.client.request('POST', '/api/cart', {
      productId: 'B0TXH00001',
      productName: 'Digest tee',
      price: 2500,
      image: 'https://images.example.com/tx.jpg',
      productUrl: 'https://shop.example.com/dp/tx',
      retailer: 'Example',
    });
    expect(item.status).toBe(201);
    const checkout = await user.client.request('POST', '/api/checkout', { cartItemId: item.json.id });
    expect(checkout.status).toBe(201);
    const orderId = checkout.json.orderId as string;
    expect(await one(user.client, orderId)).toMatchObject({ orderId, type: 'checkout', tx_hash: null });
    expect((await listed(user.client, '?type=checkout')).map(({ tx_hash }) => tx_hash)).toEqual([null]);

    stack.provider.approve(checkout.json.providerOrderId as string);
    const recorded = await eventually(
      async () => (await stack.store.load('order', orderId)).events,
      (events) => events.some((event) => event.type === 'OrderCheckedOutOnChain'),
      30_000,
    );
    const digest = (
      recorded.find((event) => event.type === 'OrderCheckedOutOnChain')!.data as { txDigest: string }
    ).txDigest;
    expect(digest).not.toBe(deposit);
    expect(
      await eventually(
        () => one(user.client, orderId),
        (order) => order.tx_hash !== null,
      ),
    ).toMatchObject({ tx_hash: digest });
    const live = await eventually(
      () => listed(user.client),
      (orders) => orders.every(({ tx_hash }) => tx_hash !== null),
    );
    expect(live.map(({ orderId: id, tx_hash }) => [id, tx_hash]).sort()).toEqual(
      [
        [orderId, digest],
        [depositOrder!.orderId, deposit],
      ].sort(),
    );

    // The read model rebuilt from the stream, read by a gateway of its own: the same digests.
    const last = await stack.store.lastStreamSequence();
    for (const runner of stack.projector.runners) await runner.caughtUp(last);
    const rebuilt = `${stack.env.schema}_rebuilt`;
    await rebuildProjections({
      store: stack.store,
      db: stack.database.db,
      schema: rebuilt,
      projections: readModelProjections(),
      migrations: readModelMigrations,
      untilSequence: last,
    });
    const reader = new TestClient(
      await stack.startGateway({ READ_MODEL_SCHEMA: rebuilt, CART_SERVICE: 'db' }),
    );
    reader.setCookie(SESSION_COOKIE, user.client.cookie(SESSION_COOKIE)!);
    // A page size not asked for before, so no cached page of the live schema answers.
    expect((await listed(reader, '?limit=7')).map(({ orderId: id, tx_hash }) => [id, tx_hash])).toEqual(
      live.map(({ orderId: id, tx_hash }) => [id, tx_hash]),
    );
    expect(await one(reader, orderId)).toMatchObject({ tx_hash: digest });
    expect(await one(reader, depositOrder!.orderId)).toMatchObject({ tx_hash: deposit });
  }, 90_000);
});
