import { randomBytes, randomUUID } from 'node:crypto';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '@shop/db';
import type { EventStore } from '@shop/eventstore';
import { CartContractClient, createSuiClient } from '@shop/chain';
import { startSuiSandbox, SuiSandbox } from '@shop/sandbox-sui';
import { ChainIndexerHost } from '../src/onchain/chain-indexer-host';
import { eventually, startTestStack, TestClient, TestStack } from './stack';

const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
let sui: SuiSandbox;
let stack: TestStack;
let store: EventStore;
let database: DatabaseHandle;
let USDC: string;

beforeAll(async () => {
  sui = await startSuiSandbox({ port: 0 });
  USDC = `${sui.paymentPackageId}::usdc::USDC`;
  stack = await startTestStack('onchain', {
    CART_SERVICE: 'onchain',
    CHAIN_RPC_URL: sui.url,
    CHAIN_CONTRACT_ADDRESS: sui.packageId,
    CHAIN_CART_REGISTRY_ID: sui.registryId,
    CHAIN_RELAYER_PRIVATE_KEY: sui.relayer.secretKey!,
    CHAIN_PAYMENT_PACKAGE_ID: sui.paymentPackageId,
    CHAIN_COIN_TYPE: USDC,
    PROVIDER_WEBHOOK_SECRET: webhookSecret,
    INDEXER_POLL_INTERVAL_MS: '100',
    REACTION_MAX_DELIVERIES: '2',
  });
  stack.provider.setWebhookTarget(`${stack.url}/api/webhooks/provider`, webhookSecret);
  store = stack.store;
  database = stack.database;
});
afterAll(async () => {
  await stack?.stop();
  await sui?.close();
});

const product = (n: number) => ({
  productId: `B0CHN${String(n).padStart(5, '0')}`,
  productName: `Chain tee ${n}`,
  price: 2500,
  image: `https://images.example.com/${n}.jpg`,
  productUrl: `https://shop.example.com/dp/${n}`,
  retailer: 'Example',
});

async function shopper() {
  const client = new TestClient(stack.url);
  const userId = await client.onboard(`${randomUUID().slice(0, 8)}@example.com`);
  const profile = await eventually(
    () => client.request('GET', '/api/auth/profile'),
    (r) => r.json.walletStatus === 'active',
  );
  return {
    client,
    userId,
    sui: profile.json.walletAddress as string,
    evm: profile.json.evmAddress as string,
  };
}

const objectIdOf = async (itemId: string) =>
  (
    await database.pool.query<{ id: string | null }>(
      `SELECT on_chain_object_id AS id FROM ${stack.env.schema}.cart_items WHERE item_id = $1`,
      [itemId],
    )
  ).rows[0]?.id ?? null;

const chain = () =>
  new CartContractClient({
    client: createSuiClient({ url: sui.url }),
    packageId: sui.packageId,
    registryId: sui.registryId,
    relayer: sui.relayer.secretKey!,
  });

/** Every contract checkout of an order, read from the chain's own events. */
async function contractCheckouts(orderId: string): Promise<string[]> {
  const digests: string[] = [];
  for (let cursor = null, more = true; more;) {
    const page = await chain().queryContractEvents(cursor);
    for (const e of page.events)
      if (e.kind === 'OrderCreated' && e.orderId === orderId) digests.push(e.txDigest);
    cursor = page.nextCursor;
    more = page.hasNextPage;
  }
  return digests;
}

/** The gauge of contract checkouts begun and not recorded yet. */
async function pendingCheckouts(): Promise<number> {
  const text = await (await fetch(`${stack.metricsUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('onchain_checkouts_pending'));
  return Number(line?.split(' ').at(-1));
}

/** The indexer lagging as far as it can: stopped until the test resumes it. */
async function withIndexerStopped<T>(run: () => Promise<T>): Promise<T> {
  const host = stack.apps[0]!.get(ChainIndexerHost);
  await host.stop();
  try {
    return await run();
  } finally {
    await host.start();
  }
}

describe('on-chain cart before the indexer caught up', () => {
  it('answers 204 to a delete sent right after the add, and the chain drops the object', async () => {
    const { client, sui: address } = await shopper();
    await client.request('POST', '/api/cart/init');
    const deleted = await withIndexerStopped(async () => {
      const added = await client.request('POST', '/api/cart', product(500));
      expect(added.status).toBe(201);
      const res = await client.request('DELETE', `/api/cart/${added.json.id}`);
      expect([res.status, res.text]).toEqual([204, '']);
      expect((await client.request('GET', '/api/cart')).json.items).toEqual([]);
      return added.json.id as string;
    });
    expect(
      await eventually(
        async () => (await chain().getCart(address))?.itemIds ?? null,
        (ids) => ids?.length === 0,
      ),
    ).toEqual([]);
    const again = await client.request('POST', '/api/cart', product(500));
    expect(again.status).toBe(201);
    expect((await client.request('GET', '/api/cart')).json.items).toMatchObject([{ id: again.json.id }]);
    expect((await client.request('DELETE', `/api/cart/${deleted}`)).json.code).toBe('CartItemNotFoundError');
  }, 30_000);

  it('calls the contract checkout exactly once when the payment webhook beats the indexer', async () => {
    const { client, evm } = await shopper();
    stack.provider.fund(evm, '100');
    await client.request('POST', '/api/cart/init');
    const orderId = await withIndexerStopped(async () => {
      const item = await client.request('POST', '/api/cart', product(600));
      const order = await client.request('POST', '/api/checkout', { cartItemId: item.json.id });
      expect(order.status).toBe(201);
      stack.provider.approve(order.json.providerOrderId as string);
      const id = order.json.orderId as string;
      const row = await eventually(
        async () =>
          (
            await database.pool.query<{ tx_hash: string | null; status: string }>(
              `SELECT tx_hash, status FROM ${stack.env.schema}.orders WHERE order_id = $1`,
              [id],
            )
          ).rows[0],
        (r) => !!r?.tx_hash && r.status === 'delivered',
        20_000,
      );
      expect(row).toMatchObject({ status: 'delivered', tx_hash: expect.any(String) });
      return id;
    });
    const checkouts = await contractCheckouts(orderId);
    expect(checkouts).toHaveLength(1);
    const events = await eventually(
      async () => (await store.load('order', orderId)).events,
      (all) => all.some((e) => e.type === 'OrderDelivered'),
    );
    expect(events.filter((e) => e.type === 'OrderOnChainCheckoutFailed')).toEqual([]);
    expect(events.filter((e) => e.type === 'OrderCheckedOutOnChain').map((e) => e.data)).toEqual([
      { txDigest: checkouts[0] },
    ]);
    const txHash = (
      await database.pool.query<{ tx_hash: string }>(
        `SELECT tx_hash FROM ${stack.env.schema}.orders WHERE order_id = $1`,
        [orderId],
      )
    ).rows[0]?.tx_hash;
    expect(txHash).toBe(checkouts[0]);
  }, 40_000);
});

describe('on-chain cart (CART_SERVICE=onchain)', () => {
  it('init -> add -> the indexer links the object id -> list shows it -> remove -> gone', async () => {
    const { client } = await shopper();
    const early = await client.request('POST', '/api/cart', product(1));
    expect([early.status, early.json.code]).toEqual([400, 'CART_NOT_INITIALIZED']);

    expect((await client.request('POST', '/api/cart/init')).json).toEqual({
      created: true,
      message: expect.any(String),
    });
    expect((await client.request('POST', '/api/cart/init')).json).toMatchObject({ created: false });
    const address = await client.request('GET', '/api/cart/address');
    expect(address.json).toEqual({ cartAddress: expect.stringMatching(/^0x[0-9a-f]{64}$/), exists: true });

    const added = await client.request('POST', '/api/cart', { ...product(1), size: 'M' });
    expect(added.status).toBe(201);
    const itemId = added.json.id as string;
    const objectId = await eventually(
      () => objectIdOf(itemId),
      (id) => id !== null,
    );
    expect(objectId).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await client.request('GET', '/api/cart')).json.items).toMatchObject([{ id: itemId, size: 'M' }]);
    expect((await client.request('GET', '/api/cart/info')).json).toEqual({
      cartAddress: address.json.cartAddress,
      itemCount: 1,
      exists: true,
    });

    const duplicate = await client.request('POST', '/api/cart', { ...product(1), size: 'M' });
    expect([duplicate.status, duplicate.json.code]).toEqual([409, 'CartDuplicateItemError']);

    expect((await client.request('DELETE', `/api/cart/${itemId}`)).status).toBe(204);
    expect((await client.request('GET', '/api/cart')).json.items).toEqual([]);
    expect((await client.request('GET', '/api/cart/info')).json.itemCount).toBe(0);
    expect((await client.request('DELETE', `/api/cart/${itemId}`)).json.code).toBe('CartItemNotFoundError');
  });

  it('parks a chain event that matches no user, and keeps indexing what follows', async () => {
    const contract = new CartContractClient({
      client: createSuiClient({ url: sui.url }),
      packageId: sui.packageId,
      registryId: sui.registryId,
      relayer: sui.relayer.secretKey!,
    });
    const stranger = Ed25519Keypair.generate().toSuiAddress();
    const { digest } = await contract.initCart(stranger);
    const parked = await eventually(
      async () =>
        (
          await stack.database.pool.query<{ subject: string }>(
            `SELECT subject FROM ${stack.env.schema}_reactions.parked_reactions WHERE reaction = 'chain-events'`,
          )
        ).rows.map((r) => r.subject),
      (subjects) => subjects.some((s) => s.includes(digest)),
      20_000,
    );
    expect(parked).toContain(stack.store.subject('chain', `${digest}-0`));

    const { client } = await shopper();
    await client.request('POST', '/api/cart/init');
    const item = await client.request('POST', '/api/cart', product(900));
    expect(
      await eventually(
        () => objectIdOf(item.json.id as string),
        (id) => id !== null,
      ),
    ).not.toBeNull();
  }, 40_000);

  it('keeps the 10-item limit with CartFullError, decided before the chain call', async () => {
    const { client } = await shopper();
    await client.request('POST', '/api/cart/init');
    for (let i = 0; i < 10; i++)
      expect((await client.request('POST', '/api/cart', product(100 + i))).status).toBe(201);
    const before = sui.requestCount('sui_executeTransactionBlock');
    const full = await client.request('POST', '/api/cart', product(200));
    expect([full.status, full.json.code]).toEqual([400, 'CartFullError']);
    expect(sui.requestCount('sui_executeTransactionBlock')).toBe(before);
  });

  it('answers WALLET_NOT_PROVISIONED for init without a Sui wallet', async () => {
    stack.provider.failNext('wallets.create', { times: 20, status: 503 });
    const client = new TestClient(stack.url);
    await client.onboard(`${randomUUID().slice(0, 8)}@example.com`);
    await eventually(
      () => client.request('GET', '/api/auth/profile'),
      (r) => r.json.walletStatus === 'failed',
      20_000,
    );
    stack.provider.clearFaults();
    const res = await client.request('POST', '/api/cart/init');
    expect([res.status, res.json.code]).toEqual([400, 'WALLET_NOT_PROVISIONED']);
  }, 40_000);

  it('calls the contract checkout once a payment is confirmed and records the digest as tx_hash', async () => {
    const { client, evm } = await shopper();
    stack.provider.fund(evm, '100');
    await client.request('POST', '/api/cart/init');
    const item = await client.request('POST', '/api/cart', product(300));
    await eventually(
      () => objectIdOf(item.json.id as string),
      (id) => id !== null,
    );
    const order = await client.request('POST', '/api/checkout', { cartItemId: item.json.id });
    expect(order.status).toBe(201);
    stack.provider.approve(order.json.providerOrderId as string);
    const txHash = await eventually(
      async () =>
        (
          await database.pool.query<{ tx_hash: string | null; status: string }>(
            `SELECT tx_hash, status FROM ${stack.env.schema}.orders WHERE order_id = $1`,
            [order.json.orderId],
          )
        ).rows[0],
      (row) => !!row?.tx_hash && row.status === 'delivered',
    );
    expect(txHash?.tx_hash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,}$/);
    const events = (await store.load('order', order.json.orderId as string)).events.map((e) => e.type);
    expect(events.filter((t) => t === 'OrderCheckedOutOnChain')).toHaveLength(1);
  });

  it('retries a contract checkout the chain cannot be reached for, and records it once', async () => {
    const { client, evm } = await shopper();
    stack.provider.fund(evm, '100');
    await client.request('POST', '/api/cart/init');
    const item = await client.request('POST', '/api/cart', product(400));
    const order = await client.request('POST', '/api/checkout', { cartItemId: item.json.id });
    const orderId = order.json.orderId as string;
    const sent = sui.requestCount('sui_executeTransactionBlock');
    sui.failNext(3, { method: 'sui_executeTransactionBlock', mode: 'unavailable' });
    sui.setLatency(1000, { method: 'sui_executeTransactionBlock' });
    stack.provider.approve(order.json.providerOrderId as string);
    expect(await eventually(pendingCheckouts, (n) => n === 1, 20_000)).toBe(1);
    sui.setLatency(0, { method: 'sui_executeTransactionBlock' });
    const events = await eventually(
      async () => (await store.load('order', orderId)).events.map((e) => e.type),
      (types) => types.includes('OrderDelivered') && types.includes('OrderCheckedOutOnChain'),
      30_000,
    );
    expect(sui.requestCount('sui_executeTransactionBlock') - sent).toBeGreaterThanOrEqual(4);
    expect(events.filter((t) => t === 'OrderCheckedOutOnChain')).toHaveLength(1);
    expect(events).not.toContain('OrderOnChainCheckoutFailed');
    expect(await contractCheckouts(orderId)).toHaveLength(1);
    expect(await eventually(pendingCheckouts, (n) => n === 0)).toBe(0);
  }, 40_000);

  it('keeps a deleted item on chain until its paid order is checked out there, then removes it', async () => {
    const { client, evm, sui: address } = await shopper();
    stack.provider.fund(evm, '100');
    await client.request('POST', '/api/cart/init');
    const item = await client.request('POST', '/api/cart', product(470));
    const order = await client.request('POST', '/api/checkout', { cartItemId: item.json.id });
    expect((await client.request('DELETE', `/api/cart/${item.json.id}`)).status).toBe(204);
    stack.provider.approve(order.json.providerOrderId as string);
    const orderId = order.json.orderId as string;
    const events = await eventually(
      async () => (await store.load('order', orderId)).events.map((e) => e.type),
      (types) =>
        types.includes('OrderDelivered') &&
        (types.includes('OrderCheckedOutOnChain') || types.includes('OrderOnChainCheckoutFailed')),
      30_000,
    );
    expect(events).not.toContain('OrderOnChainCheckoutFailed');
    expect(await contractCheckouts(orderId)).toHaveLength(1);
    expect(
      await eventually(
        async () => (await chain().getCart(address))?.itemIds ?? null,
        (ids) => ids?.length === 0,
      ),
    ).toEqual([]);
  }, 40_000);

  it('takes delivered items off the chain: a shopper who ordered more than 10 items can still add, even a product ordered before, and the chain holds the active items', async () => {
    const { client, evm, sui: address } = await shopper();
    stack.provider.fund(evm, '1000');
    await client.request('POST', '/api/cart/init');
    const kept = await client.request('POST', '/api/cart', product(500));
    expect(kept.status).toBe(201);
    for (let n = 1; n <= 11; n++) {
      const item = await client.request('POST', '/api/cart', product(500 + n));
      expect([n, item.status, item.json.code]).toEqual([n, 201, undefined]);
      const order = await client.request('POST', '/api/checkout', { cartItemId: item.json.id });
      expect(order.status).toBe(201);
      stack.provider.approve(order.json.providerOrderId as string);
      await eventually(
        async () => (await store.load('order', order.json.orderId as string)).events.map((e) => e.type),
        (types) => types.includes('OrderDelivered') && types.includes('OrderCheckedOutOnChain'),
        20_000,
      );
    }
    // The first product ordered again: its delivered object no longer stands in the way.
    const last = await client.request('POST', '/api/cart', product(501));
    expect([last.status, last.json.code]).toEqual([201, undefined]);
    const active = ((await client.request('GET', '/api/cart')).json.items as { id: string }[]).map(
      (i) => i.id,
    );
    expect(active.sort()).toEqual([kept.json.id as string, last.json.id as string].sort());
    const objects = await Promise.all(active.map(objectIdOf));
    expect(
      await eventually(
        async () => [...((await chain().getCart(address))?.itemIds ?? [])].sort(),
        (ids) => ids.length === active.length,
      ),
    ).toEqual(objects.sort());
  }, 120_000);

  it("records the chain's refusal of a checkout and keeps the status change", async () => {
    const { client, evm, sui: address } = await shopper();
    stack.provider.fund(evm, '100');
    await client.request('POST', '/api/cart/init');
    const item = await client.request('POST', '/api/cart', product(450));
    const order = await client.request('POST', '/api/checkout', { cartItemId: item.json.id });
    await chain().removeItem(address, (await objectIdOf(item.json.id as string))!);
    stack.provider.approve(order.json.providerOrderId as string);
    const events = await eventually(
      async () => (await store.load('order', order.json.orderId as string)).events.map((e) => e.type),
      (types) => types.includes('OrderDelivered') && types.includes('OrderOnChainCheckoutFailed'),
      30_000,
    );
    expect(events).toContain('OrderPaymentConfirmed');
    expect(events).not.toContain('OrderCheckedOutOnChain');
    expect(await contractCheckouts(order.json.orderId as string)).toEqual([]);
    const orders = await eventually(
      async () => (await client.request('GET', '/api/orders')).json.orders as { status: string }[],
      (list) => list[0]?.status === 'delivered',
    );
    expect(orders).toMatchObject([{ status: 'delivered' }]);
  }, 40_000);
});

describe('POST /api/deposit/verify', () => {
  const verify = (client: TestClient, body: Record<string, string>) =>
    client.request('POST', '/api/deposit/verify', body);

  it('credits a PaymentReceipt to the user once, and answers every error message of the spec', async () => {
    const user = await shopper();
    const payer = Ed25519Keypair.generate().toSuiAddress();
    const nonce = randomUUID();
    const digest = sui.createPayment({
      payer,
      receiver: user.sui,
      amountMist: 2_500_000n,
      coinType: USDC,
      nonce,
    });
    const body = { txDigest: digest, nonce, amount: '2500000', coinType: USDC };

    const cases: [Record<string, string>, string][] = [
      [{ ...body, coinType: '0x2::sui::SUI' }, 'Invalid coin type'],
      [{ ...body, nonce: 'other' }, 'Nonce mismatch'],
      [{ ...body, amount: '2500001' }, 'Amount mismatch'],
    ];
    for (const [request, message] of cases) {
      const res = await verify(user.client, request);
      expect([res.status, res.json.error]).toEqual([400, message]);
    }
    const noReceipt = sui.createPayment({
      payer,
      receiver: user.sui,
      amountMist: 1_000_000n,
      coinType: USDC,
      nonce,
      emitReceipt: false,
    });
    expect((await verify(user.client, { ...body, txDigest: noReceipt })).json.error).toBe(
      'No PaymentReceipt event found',
    );
    const spoofed = sui.createPayment({
      payer,
      receiver: user.sui,
      amountMist: 2_500_000n,
      coinType: USDC,
      nonce,
      packageId: `0x${randomBytes(32).toString('hex')}`,
    });
    expect((await verify(user.client, { ...body, txDigest: spoofed })).json.error).toBe(
      'No PaymentReceipt event found',
    );
    const failed = sui.createPayment({
      payer,
      receiver: user.sui,
      amountMist: 2_500_000n,
      coinType: USDC,
      nonce,
      failed: true,
    });
    expect((await verify(user.client, { ...body, txDigest: failed })).json.error).toBe(
      'No PaymentReceipt event found',
    );
    const elsewhere = sui.createPayment({
      payer,
      receiver: payer,
      amountMist: 2_500_000n,
      coinType: USDC,
      nonce,
    });
    expect((await verify(user.client, { ...body, txDigest: elsewhere })).json.error).toBe(
      'Receiver mismatch',
    );

    const ok = await verify(user.client, body);
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ success: true, txDigest: digest, usdcAmount: 2.5, usdmxAmount: '2.5' });
    const again = await verify(user.client, body);
    expect([again.status, again.json.error]).toEqual([409, 'Deposit already processed']);
    expect((await user.client.request('GET', '/api/orders?type=deposit')).json.total).toBe(1);
  });

  it('reads only the receipt fields the spec names: no payer is fine, a receipt missing one is a 400, never a 500', async () => {
    const user = await shopper();
    const payer = Ed25519Keypair.generate().toSuiAddress();
    const nonce = randomUUID();
    const receipt = (parsedJson: Record<string, unknown>) =>
      sui.addTransaction({
        sender: payer,
        call: { package: sui.paymentPackageId, module: 'payment', function: 'pay' },
        balanceChanges: [
          { owner: { AddressOwner: payer }, coinType: USDC, amount: '-1200000' },
          { owner: { AddressOwner: user.sui }, coinType: USDC, amount: '1200000' },
        ],
        events: [{ type: `${sui.paymentPackageId}::payment::PaymentReceipt`, parsedJson }],
      });
    const body = { nonce, amount: '1200000', coinType: USDC };
    const withoutPayer = receipt({ nonce, amount: '1200000', receiver: user.sui, coin_type: USDC });
    const credited = await verify(user.client, { ...body, txDigest: withoutPayer });
    expect([credited.status, credited.json.usdmxAmount]).toEqual([200, '1.2']);
    const withoutAmount = receipt({ nonce, receiver: user.sui, coin_type: USDC });
    const refused = await verify(user.client, { ...body, txDigest: withoutAmount });
    expect([refused.status, refused.json.error]).toEqual([400, 'No PaymentReceipt event found']);
  });

  it('answers Wallet not provisioned for a user without wallets', async () => {
    stack.provider.failNext('wallets.create', { times: 20, status: 503 });
    const client = new TestClient(stack.url);
    await client.request('POST', '/api/dev/login', { email: `${randomUUID().slice(0, 8)}@example.com` });
    await eventually(
      () => client.request('GET', '/api/auth/profile'),
      (r) => r.json.walletStatus === 'failed',
      20_000,
    );
    stack.provider.clearFaults();
    const res = await verify(client, {
      txDigest: '11111111111111111111111111111111',
      nonce: 'n',
      amount: '1',
      coinType: USDC,
    });
    expect([res.status, res.json.error]).toEqual([400, 'Wallet not provisioned']);
  }, 40_000);

  it('credits once under two concurrent verifications, and leaves a refused funding retryable', async () => {
    const user = await shopper();
    const payer = Ed25519Keypair.generate().toSuiAddress();
    const nonce = randomUUID();
    const digest = sui.createPayment({
      payer,
      receiver: user.sui,
      amountMist: 1_000_000n,
      coinType: USDC,
      nonce,
    });
    const body = { txDigest: digest, nonce, amount: '1000000', coinType: USDC };

    stack.provider.failNext('wallets.fund', { status: 400 });
    const failed = await verify(user.client, body);
    expect([failed.status]).toEqual([500]);
    expect(failed.json.error).toMatch(/^Faucet failed: /);
    stack.provider.clearFaults();

    const results = await Promise.all([verify(user.client, body), verify(user.client, body)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const deposits = await user.client.request('GET', '/api/orders?type=deposit');
    expect((deposits.json.orders as Record<string, unknown>[])[0]).toMatchObject({ status: 'delivered' });
  });
});
