import { randomUUID } from 'node:crypto';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, searchEnv } from '@shop/config';
import { createLogger } from '@shop/logging';
import { systemActor } from '@shop/contracts';
import { DeciderRunner } from '@shop/commands';
import { depositAggregate } from '@shop/domain';
import { ProviderClient } from '@shop/provider';
import { startSuiSandbox, SuiSandbox } from '@shop/sandbox-sui';
import { FaultProxy, startFaultProxy } from '@shop/testing';
import { startSearchService } from '../../search/src/bootstrap';
import { eventually, startTestStack, TestClient, TestStack } from './stack';

const USDC = '0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC';
const secret = 'deposit-secret-0123456789abcdef';

let stack: TestStack;
let sui: SuiSandbox;
let searchUrl: string;
let closeSearch: () => Promise<void>;
/** Between the search service and the gateway, for faults on that hop. */
let hop: FaultProxy;
const merchant = Ed25519Keypair.generate().toSuiAddress();

beforeAll(async () => {
  sui = await startSuiSandbox({ port: 0 });
  stack = await startTestStack('deposit', {
    DEPOSIT_WEBHOOK_SECRET: secret,
    CHAIN_COIN_TYPE: USDC,
    CHAIN_RPC_URL: sui.url,
    PROVIDER_TIMEOUT_MS: '2000',
    RECONCILE_INTERVAL_MS: '500',
  });
  hop = await startFaultProxy(stack.url);
  const config = loadConfig(searchEnv, {
    ...process.env,
    ...stack.env.env,
    PORT: '0',
    HOST: '127.0.0.1',
    SEARCH_SCHEMA: `${stack.env.schema}_search`,
    CHAIN_RPC_URL: sui.url,
    CHAIN_MERCHANT_ADDRESS: merchant,
    CHAIN_COIN_TYPE: USDC,
    CHAIN_PAYMENT_AMOUNT_MIST: '1000000',
    DEPOSIT_WEBHOOK_SECRET: secret,
    BACKEND_URL: hop.url,
    RECONCILE_INTERVAL_MS: '500',
  });
  const search = await startSearchService(config, createLogger('search', 'silent'), { rpcGracePeriodMs: 0 });
  searchUrl = search.url;
  closeSearch = () => search.app.close();
});
afterAll(async () => {
  await closeSearch?.();
  await hop?.close();
  await sui?.close();
  await stack?.stop();
});

async function userWithWallets() {
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

const usdcBalance = async (evm: string) => {
  const provider = new ProviderClient({
    baseUrl: stack.provider.url,
    apiKey: stack.provider.apiKey,
    timeoutMs: 5000,
  });
  const balances = await provider.getBalances(evm, { tokens: ['usdc'], chains: ['base-sepolia'] });
  return balances.find((b) => b.symbol === 'usdc')?.amount ?? '0';
};

const confirm = (
  userId: string,
  address: string,
  body: Record<string, string>,
  headers: Record<string, string> = { 'x-webhook-secret': secret },
  gateway = stack.url,
) => new TestClient(gateway).request('POST', `/api/deposit/${userId}/${address}/confirm`, body, headers);

describe('deposit: search service verification -> gateway confirmation', () => {
  it('credits a verified payment once and lists it as a deposit order', async () => {
    const user = await userWithWallets();
    const digest = sui.createPayment({
      payer: user.sui,
      receiver: merchant,
      amountMist: 2_500_000n,
      coinType: USDC,
      nonce: randomUUID(),
    });
    const before = Number(await usdcBalance(user.evm));

    const verified = await new TestClient(searchUrl).request('POST', '/api/payment/verify', {
      txHash: digest,
      userId: user.userId,
    });
    expect(verified.status).toBe(200);
    expect((verified.json.data as { status: string }).status).toBe('SUCCESS');
    expect(Number(await usdcBalance(user.evm))).toBeCloseTo(before + 2.5, 6);

    const orders = await user.client.request('GET', '/api/orders?type=deposit');
    expect(orders.json.total).toBe(1);
    expect((orders.json.orders as Record<string, unknown>[])[0]).toMatchObject({
      type: 'deposit',
      status: 'delivered',
      providerOrderId: digest,
      quote: { totalPrice: { amount: '2.5', currency: 'usdc' } },
    });

    // A repeat, through the search service or straight to the gateway, credits nothing more.
    expect(
      (
        await new TestClient(searchUrl).request('POST', '/api/payment/verify', {
          txHash: digest,
          userId: user.userId,
        })
      ).status,
    ).toBe(200);
    const again = await confirm(user.userId, user.sui, {
      amount: '2500000',
      transactionHash: digest,
      network: 'testnet',
      currency: USDC,
    });
    expect([again.status, again.json.error, again.json.code]).toEqual([
      409,
      'Deposit already processed',
      'DEPOSIT_ALREADY_CREDITED',
    ]);
    expect(Number(await usdcBalance(user.evm))).toBeCloseTo(before + 2.5, 6);
  });

  it('refuses a missing or wrong secret with 401, and credits nothing', async () => {
    const user = await userWithWallets();
    const body = {
      amount: '1000000',
      transactionHash: 'Dig3st' + randomUUID().replace(/-/g, ''),
      network: 'testnet',
      currency: USDC,
    };
    const attempts: Record<string, string>[] = [
      {},
      { 'x-webhook-secret': 'guess' },
      { 'x-webhook-secret': `${secret}x` },
    ];
    for (const headers of attempts) {
      const res = await confirm(user.userId, user.sui, body, headers);
      expect([res.status, res.json.code]).toEqual([401, 'UNAUTHORIZED']);
    }
    expect((await user.client.request('GET', '/api/orders?type=deposit')).json.total).toBe(0);
  });

  it("refuses a payer that is not the user's own wallet, and a wrong coin, with 400", async () => {
    const user = await userWithWallets();
    const digest = 'Dig3st' + randomUUID().replace(/-/g, '');
    const other = Ed25519Keypair.generate().toSuiAddress();
    const wrongPayer = await confirm(user.userId, other, {
      amount: '1000000',
      transactionHash: digest,
      network: 'testnet',
      currency: USDC,
    });
    expect([wrongPayer.status, wrongPayer.json.code]).toEqual([400, 'WALLET_MISMATCH']);
    const wrongCoin = await confirm(user.userId, user.sui, {
      amount: '1000000',
      transactionHash: digest,
      network: 'testnet',
      currency: '0x2::sui::SUI',
    });
    expect([wrongCoin.status, wrongCoin.json]).toEqual([
      400,
      { error: 'Invalid coin type', code: 'INVALID_COIN_TYPE' },
    ]);
    expect((await user.client.request('GET', '/api/orders?type=deposit')).json.total).toBe(0);
    // The digest was not burned by those refusals.
    expect(
      (
        await confirm(user.userId, user.sui, {
          amount: '1000000',
          transactionHash: digest,
          network: 'testnet',
          currency: USDC,
        })
      ).status,
    ).toBe(200);
  });

  it('tells a wallet that is not provisioned yet (can change) from a user that does not exist (final) by code', async () => {
    const body = {
      amount: '1000000',
      transactionHash: 'Dig3st' + randomUUID().replace(/-/g, ''),
      network: 'testnet',
      currency: USDC,
    };
    const stranger = await confirm(randomUUID(), Ed25519Keypair.generate().toSuiAddress(), body);
    expect([stranger.status, stranger.json]).toEqual([
      400,
      { error: 'Wallet not provisioned', code: 'USER_NOT_FOUND' },
    ]);

    stack.provider.failNext('wallets.create', { status: 400 });
    const client = new TestClient(stack.url);
    const userId = await client.onboard(`${randomUUID().slice(0, 8)}@example.com`);
    await eventually(
      () => client.request('GET', '/api/auth/profile'),
      (r) => r.json.walletStatus === 'failed',
    );
    const unprovisioned = await confirm(userId, Ed25519Keypair.generate().toSuiAddress(), body);
    expect([unprovisioned.status, unprovisioned.json]).toEqual([
      400,
      { error: 'Wallet not provisioned', code: 'WALLET_NOT_PROVISIONED' },
    ]);
  });

  it('credits once under concurrent confirmations of one digest', async () => {
    const user = await userWithWallets();
    const before = Number(await usdcBalance(user.evm));
    const body = {
      amount: '3000000',
      transactionHash: 'Dig3st' + randomUUID().replace(/-/g, ''),
      network: 'testnet',
      currency: USDC,
    };
    const results = await Promise.all(Array.from({ length: 6 }, () => confirm(user.userId, user.sui, body)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(5);
    expect(Number(await usdcBalance(user.evm))).toBeCloseTo(before + 3, 6);
  });

  it('answers a funding the provider refuses with 500 "Faucet failed" and leaves the digest retryable', async () => {
    const user = await userWithWallets();
    const body = {
      amount: '1500000',
      transactionHash: 'Dig3st' + randomUUID().replace(/-/g, ''),
      network: 'testnet',
      currency: USDC,
    };
    stack.provider.failNext('wallets.fund', { status: 400 });
    const failed = await confirm(user.userId, user.sui, body);
    expect(failed.status).toBe(500);
    expect(failed.json.error).toMatch(/^Faucet failed: /);
    const cancelled = await user.client.request('GET', '/api/orders?type=deposit');
    expect((cancelled.json.orders as Record<string, unknown>[])[0]).toMatchObject({ status: 'cancelled' });
    stack.provider.clearFaults();
    const retried = await confirm(user.userId, user.sui, body);
    expect(retried.status).toBe(200);
    expect(retried.json).toEqual({
      success: true,
      txDigest: body.transactionHash,
      usdcAmount: 1.5,
      usdmxAmount: '1.5',
    });
  });

  it('counts a funding answered 2xx in a body it cannot read as funded, never failed, and funds it once', async () => {
    const user = await userWithWallets();
    const body = {
      amount: '1250000',
      transactionHash: 'Dig3st' + randomUUID().replace(/-/g, ''),
      network: 'testnet',
      currency: USDC,
    };
    stack.provider.failNext('wallets.fund', { mode: 'garbled-after', status: 200 });
    const answered = await confirm(user.userId, user.sui, body);
    expect([answered.status, answered.json.usdmxAmount]).toEqual([200, '1.25']);
    const again = await confirm(user.userId, user.sui, body);
    expect([again.status, again.json.code]).toEqual([409, 'DEPOSIT_ALREADY_CREDITED']);
    const { events } = await stack.store.load('deposit', body.transactionHash);
    expect(events.map((e) => e.type)).toEqual(['DepositClaimed', 'DepositCredited']);
    expect(events[1]!.data).toMatchObject({ providerAnswer: expect.stringMatching(/HTTP 200/) });
    expect(Number(await usdcBalance(user.evm))).toBeCloseTo(1.25, 6);
  });

  it('lets one gateway at a time reconcile open claims: the others stand by', async () => {
    await stack.startGateway();
    const holders = async () =>
      (
        await stack.database.pool.query<{ holders: string }>(
          `SELECT count(*) AS holders FROM pg_locks WHERE locktype = 'advisory' AND granted
             AND objid = hashtext($1)::oid`,
          [`reconcile:${stack.env.schema}:deposit-claims`],
        )
      ).rows[0]!.holders;
    await expect.poll(async () => Number(await holders()), { timeout: 10_000 }).toBe(1);
    const standing = await stack.database.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1`,
      [`lock:reconcile:${stack.env.schema}:deposit-claims`.slice(0, 63)],
    );
    expect(Number(standing.rows[0]!.n)).toBe(1);
  });

  it('answers 503 WEBHOOK_NOT_CONFIGURED when no secret is configured', async () => {
    const unconfigured = await stack.startGateway({ DEPOSIT_WEBHOOK_SECRET: '' });
    const res = await new TestClient(unconfigured).request(
      'POST',
      `/api/deposit/${randomUUID()}/0x1/confirm`,
      { amount: '1', transactionHash: 'abc', network: 'testnet', currency: USDC },
      { 'x-webhook-secret': secret },
    );
    expect([res.status, res.json.code]).toEqual([503, 'WEBHOOK_NOT_CONFIGURED']);
  });

  it('refuses to credit without the accepted coin configured (503), whatever coin is sent', async () => {
    const unconfigured = await stack.startGateway({ CHAIN_COIN_TYPE: '' });
    const user = await userWithWallets();
    const res = await confirm(
      user.userId,
      user.sui,
      {
        amount: '1000000000',
        transactionHash: 'Dig3st' + randomUUID().replace(/-/g, ''),
        network: 'testnet',
        currency: '0x2::sui::SUI',
      },
      undefined,
      unconfigured,
    );
    expect([res.status, res.json.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect(Number(await usdcBalance(user.evm))).toBe(0);
  });

  it("converts with the decimals the chain reports for the accepted coin, not USDC's", async () => {
    const suiGateway = await stack.startGateway({ CHAIN_COIN_TYPE: '0x2::sui::SUI' });
    const user = await userWithWallets();
    const res = await confirm(
      user.userId,
      user.sui,
      {
        amount: '1000000000',
        transactionHash: 'Dig3st' + randomUUID().replace(/-/g, ''),
        network: 'testnet',
        currency: '0x2::sui::SUI',
      },
      undefined,
      suiGateway,
    );
    expect([res.status, res.json.usdmxAmount]).toEqual([200, '1']);
    expect(Number(await usdcBalance(user.evm))).toBeCloseTo(1, 6);
  });

  it('tells "in progress" from "already credited" with distinct 409 codes', async () => {
    const user = await userWithWallets();
    const body = {
      amount: '2000000',
      transactionHash: 'Dig3st' + randomUUID().replace(/-/g, ''),
      network: 'testnet',
      currency: USDC,
    };
    stack.provider.failNext('wallets.fund', { mode: 'hang' });
    const first = confirm(user.userId, user.sui, body);
    await eventually(
      () => user.client.request('GET', '/api/orders?type=deposit'),
      (r) => r.json.total === 1,
    );
    const during = await confirm(user.userId, user.sui, body);
    expect([during.status, during.json.code]).toEqual([409, 'DEPOSIT_IN_PROGRESS']);
    await first;
    const after = await eventually(
      () => confirm(user.userId, user.sui, body),
      (r) => r.status === 409 && r.json.code !== 'DEPOSIT_IN_PROGRESS',
      20_000,
    );
    expect([after.status, after.json.code]).toEqual([409, 'DEPOSIT_ALREADY_CREDITED']);
    expect(Number(await usdcBalance(user.evm))).toBeCloseTo(2, 6);
  });

  it('funds once when the provider handled the funding but its answer was lost', async () => {
    const user = await userWithWallets();
    const body = {
      amount: '1500000',
      transactionHash: 'Dig3st' + randomUUID().replace(/-/g, ''),
      network: 'testnet',
      currency: USDC,
    };
    // Funded, then no answer until the gateway's deadline: the outcome is unknown to it.
    stack.provider.failNext('wallets.fund', { mode: 'hang-after' });
    await confirm(user.userId, user.sui, body);
    const settled = await eventually(
      () => confirm(user.userId, user.sui, body),
      (r) => r.status === 200 || r.json.code === 'DEPOSIT_ALREADY_CREDITED',
      20_000,
    );
    expect([settled.status, settled.json.code]).toEqual([409, 'DEPOSIT_ALREADY_CREDITED']);
    expect(Number(await usdcBalance(user.evm))).toBeCloseTo(1.5, 6);
    const keys = stack.provider
      .requests('wallets.fund')
      .map((r) => r.idempotencyKey)
      .filter((key) => key?.includes(body.transactionHash));
    expect(keys.length).toBeGreaterThan(1);
    expect(new Set(keys).size).toBe(1);
  });

  it('credits a claim whose request died before funding, with no further request', async () => {
    const user = await userWithWallets();
    const digest = 'Dig3st' + randomUUID().replace(/-/g, '');
    // What the claim step appends before funding; the process that appended it is gone.
    await new DeciderRunner(stack.store).run(
      depositAggregate,
      digest,
      {
        type: 'ClaimDeposit',
        userId: user.userId,
        payerAddress: user.sui,
        evmAddress: user.evm,
        amountMist: '2000000',
        usdcAmount: '2',
        coinType: USDC,
        source: 'search-service',
        now: Date.now(),
      },
      { commandId: randomUUID(), correlationId: randomUUID(), actor: systemActor },
    );
    await eventually(
      () => usdcBalance(user.evm),
      (balance) => Number(balance) === 2,
      20_000,
    );
    const orders = await eventually(
      () => user.client.request('GET', '/api/orders?type=deposit'),
      (r) => (r.json.orders as { status: string }[])[0]?.status === 'delivered',
    );
    expect(orders.json.total).toBe(1);
  });

  it('delivers a verified payment the gateway did not acknowledge, with no further verify', async () => {
    const user = await userWithWallets();
    const digest = sui.createPayment({
      payer: user.sui,
      receiver: merchant,
      amountMist: 3_000_000n,
      coinType: USDC,
      nonce: randomUUID(),
    });
    hop.faultNext('refuse', 'drop', 'refuse', 'hang');
    const verified = await new TestClient(searchUrl).request('POST', '/api/payment/verify', {
      txHash: digest,
      userId: user.userId,
    });
    expect(verified.status).toBe(502);
    const record = await eventually(
      () => new TestClient(searchUrl).request('GET', `/api/payment/transaction/${digest}`),
      (r) => (r.json.data as { status: string }).status === 'SUCCESS',
      20_000,
    );
    expect((record.json.data as { status: string }).status).toBe('SUCCESS');
    expect(Number(await usdcBalance(user.evm))).toBeCloseTo(3, 6);
  });

  it("does not let a stranger's verification lock a payment for its owner, and never shows who paid", async () => {
    const user = await userWithWallets();
    const digest = sui.createPayment({
      payer: user.sui,
      receiver: merchant,
      amountMist: 4_000_000n,
      coinType: USDC,
      nonce: randomUUID(),
    });
    const search = new TestClient(searchUrl);
    const stranger = await search.request('POST', '/api/payment/verify', {
      txHash: digest,
      userId: randomUUID(),
    });
    expect(stranger.status).toBeGreaterThanOrEqual(400);
    const owner = await search.request('POST', '/api/payment/verify', {
      txHash: digest,
      userId: user.userId,
    });
    expect([owner.status, (owner.json.data as { status: string }).status]).toEqual([200, 'SUCCESS']);
    expect(Number(await usdcBalance(user.evm))).toBeCloseTo(4, 6);
    const record = await search.request('GET', `/api/payment/transaction/${digest}`);
    const paymentId = (owner.json.data as { paymentId: string }).paymentId;
    const byId = await search.request('GET', `/api/payment/${paymentId}`);
    for (const shown of [record, byId]) {
      expect(shown.status).toBe(200);
      expect(shown.json.data).toMatchObject({ txHash: digest, amount: '4000000', status: 'SUCCESS' });
      expect(Object.keys(shown.json.data as object)).not.toContain('userId');
      expect(Object.keys(shown.json.data as object)).not.toContain('payer');
      expect(JSON.stringify(shown.json)).not.toContain(user.sui.slice(2));
    }
  });
});
