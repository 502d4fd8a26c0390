import { emailOwner, ProviderError } from '@shop/provider';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProviderSandbox, RecordedRequest, startProviderSandbox } from '../src';
import { clientFor, orderInput, uniqueEmail, walletFor } from './fixtures';

describe('provider client against a failing provider', () => {
  let sandbox: ProviderSandbox;

  beforeAll(async () => {
    sandbox = await startProviderSandbox();
  });
  afterEach(() => sandbox.clearFaults());
  afterAll(() => sandbox.close());

  /** The client hung up on each of these held requests: its deadline aborted them, nothing else could. */
  async function expectGivenUp(held: RecordedRequest[], count: number) {
    await expect
      .poll(() => held.map((request) => request.closedUnanswered))
      .toEqual(Array.from({ length: count }, () => true));
  }

  async function payableInput() {
    const email = uniqueEmail('resilience');
    const payer = await walletFor(clientFor(sandbox), email);
    sandbox.fund(payer, '100');
    return orderInput(payer, email, ['1']);
  }

  it('retries a GET through transient 500s', async () => {
    const client = clientFor(sandbox);
    const { order } = await client.createOrder(await payableInput());
    const before = sandbox.requests('orders.get').length;
    sandbox.failNext('orders.get', { times: 2 });

    await expect(client.getOrder(order.orderId)).resolves.toMatchObject({ orderId: order.orderId });
    expect(sandbox.requests('orders.get').length - before).toBe(3);
  });

  it('gives up on a GET after the bounded attempts with kind unavailable', async () => {
    const client = clientFor(sandbox);
    const before = sandbox.requests('wallets.balances').length;
    sandbox.failNext('wallets.balances', { times: 5, status: 503 });

    const error = await client
      .getBalances('email:any@example.com:evm', { tokens: ['usdc'], chains: ['base-sepolia'] })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      kind: 'unavailable',
      status: 503,
      providerMessage: expect.stringMatching(/fault/),
    });
    expect(sandbox.requests('wallets.balances').length - before).toBe(3);
  });

  it('does not retry an order creation without an idempotency key', async () => {
    const client = clientFor(sandbox);
    const input = await payableInput();
    const before = sandbox.requests('orders.create').length;
    sandbox.failNext('orders.create');

    await expect(client.createOrder(input)).rejects.toMatchObject({ kind: 'unavailable', status: 500 });
    expect(sandbox.requests('orders.create').length - before).toBe(1);
  });

  it('retries an order creation that carries an idempotency key, under that key', async () => {
    const client = clientFor(sandbox);
    const input = await payableInput();
    const before = sandbox.requests('orders.create').length;
    sandbox.failNext('orders.create');

    const { order } = await client.createOrder(input, { idempotencyKey: 'checkout-retry-1' });
    const attempts = sandbox.requests('orders.create').slice(before);

    expect(attempts.map((attempt) => attempt.idempotencyKey)).toEqual([
      'checkout-retry-1',
      'checkout-retry-1',
    ]);
    await expect(client.getOrder(order.orderId)).resolves.toMatchObject({
      payment: { status: 'awaiting-payment' },
    });
  });

  it('retries wallet creation, which the provider keeps to one wallet per owner', async () => {
    const client = clientFor(sandbox);
    const email = uniqueEmail('wallet-retry');
    sandbox.failNext('wallets.create', { status: 502 });

    const wallet = await client.createWallet({
      owner: emailOwner(email),
      adminSigner: { type: 'email', email },
    });

    expect(await client.getWallet(`email:${email}:evm`)).toEqual(wallet);
  });

  it('does not retry a refresh, whose token the provider spends on first use', async () => {
    const client = clientFor(sandbox);
    const session = await sandbox.issueToken(uniqueEmail('refresh-fault'));
    const before = sandbox.requests('auth.refresh').length;
    sandbox.failNext('auth.refresh');

    await expect(client.refreshSession(session.refresh.secret)).rejects.toMatchObject({
      kind: 'unavailable',
    });
    expect(sandbox.requests('auth.refresh').length - before).toBe(1);
  });

  it('ends a hanging GET with kind timeout within the deadline', async () => {
    const client = clientFor(sandbox, { timeoutMs: 400 });
    const before = sandbox.requests('orders.get').length;
    sandbox.failNext('orders.get', { mode: 'hang', times: 3 });

    // The sandbox never answers a hung request, so only the client's own deadline can end the call.
    const error = await client.getOrder('any-order').catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      kind: 'timeout',
      operation: 'orders.get',
      status: undefined,
      providerMessage: 'no answer within 400 ms',
    });
    await expectGivenUp(sandbox.requests('orders.get').slice(before), 1);
  });

  it('ends a hanging order creation with kind timeout and a single attempt', async () => {
    const client = clientFor(sandbox, { timeoutMs: 300 });
    const input = await payableInput();
    const before = sandbox.requests('orders.create').length;
    sandbox.failNext('orders.create', { mode: 'hang' });

    await expect(client.createOrder(input)).rejects.toMatchObject({ kind: 'timeout' });
    expect(sandbox.requests('orders.create').length - before).toBe(1);
    await expectGivenUp(sandbox.requests('orders.create').slice(before), 1);
  });

  it('acts before losing the answer (error-after) or answering late (late): a retry under the same key gets that order', async () => {
    for (const mode of ['error-after', 'late'] as const) {
      const input = await payableInput();
      const key = `order-${mode}-${Date.now()}`;
      sandbox.failNext('orders.create', { mode, delayMs: 600, times: mode === 'error-after' ? 10 : 1 });
      const lost = await clientFor(sandbox, { timeoutMs: 300 })
        .createOrder(input, { idempotencyKey: key })
        .catch((e: unknown) => e);
      expect(lost).toBeInstanceOf(ProviderError);
      sandbox.clearFaults();
      const retried = await clientFor(sandbox).createOrder(input, { idempotencyKey: key });
      const created = sandbox.requests('orders.create').filter((r) => r.idempotencyKey === key);
      expect(created.length).toBeGreaterThanOrEqual(2);
      const again = await clientFor(sandbox).createOrder(input, { idempotencyKey: key });
      expect(again.order.orderId).toBe(retried.order.orderId);
    }
  });

  it('acts before answering a 2xx in another format (garbled-after): unreadable to the client, a retry under the same key gets the first result', async () => {
    const client = clientFor(sandbox);
    const address = await walletFor(client, uniqueEmail('garbled'));
    const input = { amount: 3, token: 'usdxm', chain: 'base-sepolia' } as const;
    const key = `fund-garbled-${Date.now()}`;
    sandbox.failNext('wallets.fund', { mode: 'garbled-after', status: 200 });

    const garbled = await client.fundWallet(address, input, { idempotencyKey: key }).catch((e: unknown) => e);
    expect(garbled).toMatchObject({ kind: 'unavailable', status: 200 });
    const repeat = await client.fundWallet(address, input, { idempotencyKey: key });
    expect(repeat[0]?.balances.total).toBe('3000000');
  });

  it('reports a stopped provider as unavailable', async () => {
    const stopped = await startProviderSandbox();
    await stopped.close();

    await expect(clientFor(stopped).getOrder('any-order')).rejects.toMatchObject({
      kind: 'unavailable',
      status: undefined,
      providerMessage: expect.stringMatching(/ECONNREFUSED/),
    });
  });
});
