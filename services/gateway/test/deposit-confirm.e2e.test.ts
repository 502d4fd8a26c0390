import { randomUUID } from 'node:crypto';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, searchEnv } from '@shop/config';
import { createLogger } from '@shop/observability';
import { ProviderClient } from '@shop/provider';
import { startSuiSandbox, SuiSandbox } from '@shop/sandbox-sui';
import { startSearchService } from '../../search/src/bootstrap';
import { eventually, startTestStack, TestClient, TestStack } from './stack';

const USDC = '0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC';
const secret = 'deposit-secret-0123456789abcdef';

let stack: TestStack;
let sui: SuiSandbox;
let searchUrl: string;
let closeSearch: () => Promise<void>;
const merchant = Ed25519Keypair.generate().toSuiAddress();

beforeAll(async () => {
  stack = await startTestStack('deposit', { DEPOSIT_WEBHOOK_SECRET: secret, CHAIN_USDC_COIN_TYPE: USDC });
  sui = await startSuiSandbox({ port: 0 });
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
    BACKEND_URL: stack.url,
  });
  const search = await startSearchService(config, createLogger('search', 'silent'), { rpcGracePeriodMs: 0 });
  searchUrl = search.url;
  closeSearch = () => search.app.close();
});
afterAll(async () => {
  await closeSearch?.();
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
) => new TestClient(stack.url).request('POST', `/api/deposit/${userId}/${address}/confirm`, body, headers);

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
    expect([again.status, again.json.error]).toEqual([409, 'Deposit already processed']);
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
    expect(wrongPayer.status).toBe(400);
    const wrongCoin = await confirm(user.userId, user.sui, {
      amount: '1000000',
      transactionHash: digest,
      network: 'testnet',
      currency: '0x2::sui::SUI',
    });
    expect([wrongCoin.status, wrongCoin.json.error]).toEqual([400, 'Invalid coin type']);
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

  it('answers a funding failure with 500 "Faucet failed" and leaves the digest retryable', async () => {
    const user = await userWithWallets();
    const body = {
      amount: '1500000',
      transactionHash: 'Dig3st' + randomUUID().replace(/-/g, ''),
      network: 'testnet',
      currency: USDC,
    };
    stack.provider.failNext('wallets.fund', { times: 10, status: 500 });
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
});
