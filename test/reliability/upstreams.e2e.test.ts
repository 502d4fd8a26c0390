import { randomUUID } from 'node:crypto';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, searchEnv } from '@shop/config';
import type { CartEvent } from '@shop/contracts';
import { cartDecider, fold } from '@shop/domain';
import { createLogger } from '@shop/logging';
import type { ProviderOperation } from '@shop/sandbox-provider';
import { startSuiSandbox, SuiSandbox } from '@shop/sandbox-sui';
import { startApifySandbox, type ApifySandbox } from '../../infra/sandbox/apify/src';
import { startSearchService } from '../../services/search/src/bootstrap';
import { Client, eventually, figures, product, readStream, Shopper, Stack, writeFigures } from './harness';

/**
 * The provider, the chain RPC node and the scraping platform, each slow or down: bounded
 * answers (deadlines shortened here through PROVIDER_TIMEOUT_MS and CHAIN_RPC_TIMEOUT_MS, 10 s
 * each by default), the spec's 502s in the envelope, no request left hanging, and no
 * half-written state behind a refusal.
 */
const providerTimeoutMs = 2000;
const chainTimeoutMs = 1500;
let sui: SuiSandbox;
let stack: Stack;
let apify: ApifySandbox;
let searchUrl: string;
let closeSearch: () => Promise<void>;
let apifyClosed = false;
let USDC: string;
const apifyToken = 'reliability-apify-token';

beforeAll(async () => {
  sui = await startSuiSandbox({ port: 0 });
  USDC = `${sui.paymentPackageId}::usdc::USDC`;
  stack = await Stack.start('upstreams', {
    vars: {
      CHAIN_RPC_URL: sui.url,
      CHAIN_PAYMENT_PACKAGE_ID: sui.paymentPackageId,
      CHAIN_COIN_TYPE: USDC,
      PROVIDER_TIMEOUT_MS: String(providerTimeoutMs),
      CHAIN_RPC_TIMEOUT_MS: String(chainTimeoutMs),
    },
  });
  apify = await startApifySandbox({ token: apifyToken, port: 0 });
  const config = loadConfig(searchEnv, {
    ...stack.serviceEnv(),
    PORT: '0',
    SEARCH_SCHEMA: `${stack.env.schema}_search`,
    CHAIN_RPC_URL: sui.url,
    CHAIN_MERCHANT_ADDRESS: Ed25519Keypair.generate().toSuiAddress(),
    APIFY_API_TOKEN: apifyToken,
    APIFY_API_BASE_URL: apify.url,
    BACKEND_URL: stack.url,
  });
  const search = await startSearchService(config, createLogger('search', 'silent'), { rpcGracePeriodMs: 0 });
  searchUrl = search.url;
  closeSearch = () => search.app.close();
}, 90_000);
afterAll(async () => {
  writeFigures('upstreams');
  await closeSearch?.();
  if (!apifyClosed) await apify?.close().catch(() => undefined);
  await stack?.stop();
  await sui?.close();
});

/**
 * Every request of `operation` the provider held unanswered since the `from`-th was hung up on by
 * the gateway: the provider never answers them, so only the gateway's deadline can have ended them.
 */
async function expectHungUpOn(operation: ProviderOperation, from: number) {
  const held = stack.provider.requests(operation).slice(from);
  expect(held.length, operation).toBeGreaterThan(0);
  await expect.poll(() => held.filter((r) => !r.closedUnanswered).map((r) => r.at)).toEqual([]);
}

async function cartEvents(userId: string): Promise<string[]> {
  const store = await stack.store();
  return (await store.load('cart', userId)).events.map((e) => e.type);
}

/**
 * Checkout failed by a provider fault: no order, the item still in the cart, and its reservation
 * either never made or kept in doubt (the provider may have made the order: the next checkout
 * resumes it under the same key).
 */
async function expectCleanCheckoutRefusal(shopper: Shopper, itemId: string) {
  const store = await stack.store();
  const events = (await store.load('cart', shopper.userId)).events as unknown as CartEvent[];
  const open = fold(cartDecider, events).checkouts.get(itemId);
  expect(open === undefined || open.inDoubt).toBe(true);
  const orders = (await readStream(store)).filter(
    (c) => c.subject.includes('.order.') && c.events.some((e) => e.data.cartItemId === itemId),
  );
  expect(orders).toEqual([]);
  const cart = await shopper.client.request('GET', '/api/cart');
  expect((cart.json.items as { id: string }[]).map((i) => i.id)).toContain(itemId);
}

describe('payment provider slow or down', () => {
  it('answers checkout with 502 when the provider errors or hangs, leaving nothing half-written', async () => {
    const shopper = await stack.shopper();
    const item = (await shopper.client.request('POST', '/api/cart', product('up-1'))).json.id as string;

    stack.provider.failNext('orders.create', { times: 10, status: 503 });
    const down = await shopper.client.request('POST', '/api/checkout', { cartItemId: item });
    expect([down.status, down.json.code]).toEqual([502, 'CheckoutOrderCreationError']);
    await expectCleanCheckoutRefusal(shopper, item);
    stack.provider.clearFaults();
    figures.faultsSurvived++;

    // Hangs, all at once: order creation, the balance check, and an order's live status.
    const other = await stack.shopper();
    const otherItem = (await other.client.request('POST', '/api/cart', product('up-2'))).json.id as string;
    const placed = await other.client.request('POST', '/api/checkout', { cartItemId: otherItem });
    expect(placed.status).toBe(201);
    const createsBefore = stack.provider.requests('orders.create').length;
    const readsBefore = stack.provider.requests('orders.get').length;
    stack.provider.failNext('orders.create', { times: 5, mode: 'hang' });
    stack.provider.failNext('orders.get', { times: 50, mode: 'hang' });
    const third = await stack.shopper();
    const thirdItem = (await third.client.request('POST', '/api/cart', product('up-3'))).json.id as string;
    const [hungCreate, hungRead, list] = await Promise.all([
      shopper.client.request('POST', '/api/checkout', { cartItemId: item }),
      other.client.request('GET', `/api/orders/${placed.json.orderId}`),
      other.client.request('GET', '/api/orders'),
    ]);
    expect([hungCreate.status, hungCreate.json.code]).toEqual([502, 'CheckoutOrderCreationError']);
    await expectCleanCheckoutRefusal(shopper, item);
    await expectHungUpOn('orders.create', createsBefore);
    expect([hungRead.status, hungRead.json.code]).toEqual([502, 'CheckoutOrderCreationError']);
    await expectHungUpOn('orders.get', readsBefore);
    // The list never fails for the provider's sake (that it does not wait out the provider's
    // deadline either is proven on a fake clock in services/gateway/test/live-orders.unit.test.ts).
    expect(list.status).toBe(200);
    stack.provider.clearFaults();

    const balancesBefore = stack.provider.requests('wallets.balances').length;
    stack.provider.failNext('wallets.balances', { times: 5, mode: 'hang' });
    const balance = await third.client.request('POST', '/api/checkout', { cartItemId: thirdItem });
    expect([balance.status, balance.json.code]).toEqual([502, 'CheckoutOrderCreationError']);
    await expectCleanCheckoutRefusal(third, thirdItem);
    await expectHungUpOn('wallets.balances', balancesBefore);
    stack.provider.clearFaults();
    figures.faultsSurvived += 3;

    // Recovered: the same items check out now, once each.
    expect((await shopper.client.request('POST', '/api/checkout', { cartItemId: item })).status).toBe(201);
    expect((await third.client.request('POST', '/api/checkout', { cartItemId: thirdItem })).status).toBe(201);
  }, 90_000);

  it('answers a deposit whose funding hangs "in progress" within bounds, then credits it once under the same key', async () => {
    const shopper = await stack.shopper();
    const body = {
      amount: '1500000',
      transactionHash: `Dig${randomUUID().replace(/-/g, '')}`,
      network: 'testnet',
      currency: USDC,
    };
    const confirm = () =>
      new Client(stack.url).request('POST', `/api/deposit/${shopper.userId}/${shopper.sui}/confirm`, body, {
        'x-webhook-secret': stack.vars.DEPOSIT_WEBHOOK_SECRET!,
      });
    stack.provider.failNext('wallets.fund', { times: 5, mode: 'hang' });
    const hung = await confirm();
    // Still in progress, so answered while the provider still hung: from the gateway's own wait for
    // the crediting process, not from the provider.
    expect([hung.status, hung.json.code]).toEqual([409, 'DEPOSIT_IN_PROGRESS']);
    stack.provider.clearFaults();
    const settled = await eventually(confirm, (r) => r.json.code === 'DEPOSIT_ALREADY_CREDITED', 30_000);
    expect([settled.status, settled.json.code]).toEqual([409, 'DEPOSIT_ALREADY_CREDITED']);
    const store = await stack.store();
    const types = (await store.load('deposit', body.transactionHash)).events.map((e) => e.type);
    expect(types.filter((t) => t === 'DepositCredited')).toHaveLength(1);
    const keys = stack.provider
      .requests('wallets.fund')
      .filter((r) => r.idempotencyKey?.includes(body.transactionHash))
      .map((r) => r.idempotencyKey);
    expect(new Set(keys).size).toBe(1);
    figures.faultsSurvived++;
  }, 60_000);
});

describe('chain RPC slow or down', () => {
  it('answers deposit verification with 502 UPSTREAM_ERROR within the deadline, and the digest stays usable', async () => {
    const shopper = await stack.shopper();
    const nonce = randomUUID();
    const digest = sui.createPayment({
      payer: Ed25519Keypair.generate().toSuiAddress(),
      receiver: shopper.sui!,
      amountMist: 2_000_000n,
      coinType: USDC,
      nonce,
    });
    const verify = () =>
      shopper.client.request('POST', '/api/deposit/verify', {
        txDigest: digest,
        nonce,
        amount: '2000000',
        coinType: USDC,
      });
    const reads = () => sui.requestCount('sui_getTransactionBlock');
    // Down: every attempt of the read (3, with back-off) fails, and then the answer comes.
    for (const mode of ['unavailable', 'disconnect'] as const) {
      const before = reads();
      sui.failNext(3, { mode, method: 'sui_getTransactionBlock' });
      const res = await verify();
      expect([res.status, res.json.code], mode).toEqual([502, 'UPSTREAM_ERROR']);
      expect(reads() - before, mode).toBe(3);
      figures.faultsSurvived++;
    }
    // Hung: the node would answer each read (successfully) after 3 deadlines, so the 502 can only
    // come from CHAIN_RPC_TIMEOUT_MS cutting every attempt.
    sui.setLatency(chainTimeoutMs * 3, { method: 'sui_getTransactionBlock' });
    const beforeHung = reads();
    const hung = await verify();
    expect([hung.status, hung.json.code]).toEqual([502, 'UPSTREAM_ERROR']);
    expect(reads() - beforeHung).toBe(3);
    // Slow but within the deadline: answered.
    sui.setLatency(chainTimeoutMs / 3, { method: 'sui_getTransactionBlock' });
    const slow = await verify();
    sui.setLatency(0, { method: 'sui_getTransactionBlock' });
    expect(slow.status).toBe(200);
    figures.faultsSurvived += 2;
    expect(slow.json).toMatchObject({ success: true, txDigest: digest, usdcAmount: 2 });
    expect((await verify()).status).toBe(409);
  }, 90_000);
});

describe('on-chain cart with the chain RPC failing', () => {
  it('answers 502 and records nothing when the node is down; a lost answer leaves chain and stream alike', async () => {
    const onchain = await stack.startGateway({
      CART_SERVICE: 'onchain',
      CHAIN_CONTRACT_ADDRESS: sui.packageId,
      CHAIN_CART_REGISTRY_ID: sui.registryId,
      CHAIN_RELAYER_PRIVATE_KEY: sui.relayer.secretKey!,
      INDEXER_POLL_INTERVAL_MS: '100',
    });
    const shopper = await stack.shopper({ url: onchain, funds: '0' });
    expect((await shopper.client.request('POST', '/api/cart/init')).status).toBe(200);
    const onChainProducts = () =>
      (sui.carts().find((c) => c.user === shopper.sui)?.items ?? []).map((i) => i.productId).sort();
    const streamProducts = async () =>
      ((await shopper.client.request('GET', '/api/cart')).json.items as { productId: string }[])
        .map((i) => i.productId)
        .sort();

    // Down: every attempt of the transaction refused; nothing on chain, nothing in the stream.
    sui.failNext(3, { method: 'sui_executeTransactionBlock', mode: 'unavailable' });
    const down = await shopper.client.request('POST', '/api/cart', product('chain-down'));
    expect([down.status, down.json.code]).toEqual([502, 'UPSTREAM_ERROR']);
    expect(onChainProducts()).toEqual([]);
    expect(await cartEvents(shopper.userId)).not.toContain('ItemAdded');
    figures.faultsSurvived++;

    // The answer lost after the node executed the transaction: the item exists once, in both.
    sui.failNext(1, { method: 'sui_executeTransactionBlock', mode: 'lost-response' });
    const lost = await shopper.client.request('POST', '/api/cart', product('chain-lost'));
    // The client cannot know the outcome: 201, a 502, or (the retried call finding the item already
    // on chain) 409 CartDuplicateItemError are all honest answers; what matters is what follows.
    expect(['201', '502 UPSTREAM_ERROR', '409 CartDuplicateItemError']).toContain(
      lost.status === 201 ? '201' : `${lost.status} ${lost.json.code}`,
    );
    const deadline = Date.now() + 15_000;
    while (
      Date.now() < deadline &&
      JSON.stringify(await streamProducts()) !== JSON.stringify(onChainProducts())
    )
      await new Promise((r) => setTimeout(r, 200));
    expect(onChainProducts()).toEqual(['P-chain-lost']);
    expect(await streamProducts()).toEqual(['P-chain-lost']);
    // And the node answering again, the cart works as before.
    expect((await shopper.client.request('POST', '/api/cart', product('chain-ok'))).status).toBe(201);
    figures.faultsSurvived++;
  }, 60_000);
});

describe('scraping platform slow or down', () => {
  const search = (q: string) =>
    new Client(searchUrl, 30_000).request('GET', `/api/search/realtime?q=${encodeURIComponent(q)}`);

  it('answers 502 in its envelope for a failed run and recovers, and never hangs when the platform is gone', async () => {
    apify.failNextRun('FAILED');
    const failed = await search(`socks ${randomUUID().slice(0, 6)}`);
    expect(failed.status).toBe(502);
    expect(failed.json).toMatchObject({ data: null, status: 'SCRAPE_FAILED', code: 502 });
    expect((await search(`socks ${randomUUID().slice(0, 6)}`)).status).toBe(200);
    figures.faultsSurvived++;

    apify.setResponseDelay(1500);
    const slow = await search(`hats ${randomUUID().slice(0, 6)}`);
    apify.setResponseDelay(0);
    expect(slow.status).toBe(200);
    figures.faultsSurvived++;

    await apify.close();
    apifyClosed = true;
    // A hang would fail the client's own 30 s guard; an answer in the envelope is what is asked.
    const gone = await search(`gloves ${randomUUID().slice(0, 6)}`);
    expect(gone.status).toBeGreaterThanOrEqual(500);
    expect(gone.json).toMatchObject({ data: null, code: gone.status });
    figures.faultsSurvived++;
  }, 90_000);
});
