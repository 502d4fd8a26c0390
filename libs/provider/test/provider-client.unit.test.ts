import { afterEach, describe, expect, it, vi } from 'vitest';
import { settlement } from '@shop/testing';
import { CreateOrderInput, ProviderClient, ProviderClientOptions, ProviderError } from '../src';
import { restoreRealClock, useFakeClock } from './fake-clock';
import { json, order, scriptedFetch } from './fake-fetch';

afterEach(restoreRealClock);

const fastRetry = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 4 };

function clientWith(fetchImpl: typeof fetch, overrides: Partial<ProviderClientOptions> = {}): ProviderClient {
  return new ProviderClient({
    baseUrl: 'https://provider.test/',
    apiKey: 'sk_test_key',
    timeoutMs: 1_000,
    retry: fastRetry,
    fetch: fetchImpl,
    ...overrides,
  });
}

const orderInput: CreateOrderInput = {
  recipient: {
    email: 'ada@example.com',
    physicalAddress: {
      name: 'Ada',
      line1: '1 Main St',
      city: 'Austin',
      state: 'TX',
      postalCode: '78701',
      country: 'US',
    },
  },
  payment: {
    method: 'base-sepolia',
    currency: 'usdc',
    payerAddress: '0x1111111111111111111111111111111111111111',
  },
  lineItems: [{ productLocator: 'amazon:B01DFKC2SO' }],
};

describe('ProviderClient requests', () => {
  it('sends the API key, a JSON body and the idempotency key to the versioned path', async () => {
    const { fetch, calls } = scriptedFetch(json(201, { clientSecret: 's', order: order() }));

    await clientWith(fetch).createOrder(orderInput, { idempotencyKey: 'checkout-1' });

    expect(calls).toEqual([
      {
        url: 'https://provider.test/api/2022-06-09/orders',
        method: 'POST',
        headers: {
          'x-api-key': 'sk_test_key',
          accept: 'application/json',
          'content-type': 'application/json',
          'x-idempotency-key': 'checkout-1',
        },
        body: orderInput,
      },
    ]);
  });

  it('keeps locators readable in the path and joins balance filters with commas', async () => {
    const { fetch, calls } = scriptedFetch(json(200, []));

    await clientWith(fetch).getBalances('email:a+b@example.com:evm', {
      tokens: ['usdc'],
      chains: ['base', 'base-sepolia'],
    });

    expect(calls[0]?.url).toBe(
      'https://provider.test/api/2025-06-09/wallets/email:a%2Bb@example.com:evm/balances?tokens=usdc&chains=base%2Cbase-sepolia',
    );
    expect(calls[0]?.headers['content-type']).toBeUndefined();
  });

  it('creates EVM smart wallets for the owner with the given admin signer', async () => {
    const wallet = { chainType: 'evm', type: 'smart', address: '0x2222222222222222222222222222222222222222' };
    const { fetch, calls } = scriptedFetch(json(201, wallet));

    const created = await clientWith(fetch).createWallet({
      owner: 'email:ada@example.com',
      adminSigner: { type: 'email', email: 'ada@example.com' },
    });

    expect(created).toEqual(wallet);
    expect(calls[0]?.body).toEqual({
      chainType: 'evm',
      type: 'smart',
      config: { adminSigner: { type: 'email', email: 'ada@example.com' } },
      owner: 'email:ada@example.com',
    });
  });
});

describe('ProviderClient answers', () => {
  it('keeps known fields and drops unknown ones', async () => {
    const { fetch } = scriptedFetch(
      json(200, order({ newField: 1, payment: { status: 'completed', extra: true } })),
    );

    const result = await clientWith(fetch).getOrder('o-1');

    expect(result.payment).toEqual({ status: 'completed' });
    expect(result).not.toHaveProperty('newField');
  });

  it('treats a success without the promised shape as unavailable, without retrying', async () => {
    const { fetch, calls } = scriptedFetch(json(200, { orderId: 'o-1' }));

    const error = await clientWith(fetch)
      .getOrder('o-1')
      .catch((e: unknown) => e);

    expect(error).toMatchObject({
      kind: 'unavailable',
      status: 200,
      providerMessage: expect.stringMatching(/phase/),
    });
    expect(calls).toHaveLength(1);
  });

  it('raises insufficient_funds for an order the payer cannot cover', async () => {
    const underfunded = order({ payment: { status: 'crypto-payer-insufficient-funds', currency: 'usdc' } });
    const { fetch } = scriptedFetch(json(201, { clientSecret: 's', order: underfunded }));

    const error = await clientWith(fetch)
      .createOrder(orderInput)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      kind: 'insufficient_funds',
      status: 201,
      providerCode: 'crypto-payer-insufficient-funds',
      providerMessage: expect.stringContaining('14.06 usdc'),
    });
  });

  it.each([
    [400, { error: true, message: 'lineItems: required' }, 'rejected', 'lineItems: required', undefined],
    [401, { error: true, message: 'bad key' }, 'unauthorized', 'bad key', undefined],
    [
      403,
      { message: 'missing scope orders.create' },
      'unauthorized',
      'missing scope orders.create',
      undefined,
    ],
    [
      404,
      { error: true, message: 'not found', code: 'order-not-found' },
      'not_found',
      'not found',
      'order-not-found',
    ],
    [422, { error: { reason: 'build_failed', message: 'reverted' } }, 'rejected', 'reverted', 'build_failed'],
    [429, { error: 'slow down' }, 'unavailable', 'slow down', undefined],
    [500, {}, 'unavailable', undefined, undefined],
    [503, { message: 'maintenance' }, 'unavailable', 'maintenance', undefined],
  ] as const)('maps HTTP %i to %s', async (status, body, kind, providerMessage, providerCode) => {
    const { fetch } = scriptedFetch(json(status, body));

    const error = await clientWith(fetch)
      .createOrder(orderInput)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind, status, providerMessage, providerCode, operation: 'orders.create' });
  });

  it('keeps the start of a non-JSON error page as the message', async () => {
    const { fetch } = scriptedFetch(() => new Response('<html>502 Bad Gateway</html>', { status: 502 }));

    await expect(clientWith(fetch).createOrder(orderInput)).rejects.toMatchObject({
      kind: 'unavailable',
      providerMessage: '<html>502 Bad Gateway</html>',
    });
  });
});

describe('ProviderClient retries', () => {
  it('retries a GET through transient failures, network errors included', async () => {
    const { fetch, calls } = scriptedFetch(
      json(503, {}),
      new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } }),
      json(200, order()),
    );

    await expect(clientWith(fetch).getOrder('o-1')).resolves.toMatchObject({ phase: 'payment' });
    expect(calls).toHaveLength(3);
  });

  it('stops after the configured attempts and reports the last failure', async () => {
    const { fetch, calls } = scriptedFetch(
      new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }),
    );

    const error = await clientWith(fetch)
      .getOrder('o-1')
      .catch((e: unknown) => e);

    expect(error).toMatchObject({
      kind: 'unavailable',
      status: undefined,
      providerMessage: 'fetch failed (ECONNREFUSED)',
    });
    expect(calls).toHaveLength(3);
  });

  it('does not retry what the provider refused', async () => {
    const { fetch, calls } = scriptedFetch(json(404, { error: true, message: 'no such order' }));

    await expect(clientWith(fetch).getOrder('o-1')).rejects.toMatchObject({ kind: 'not_found' });
    expect(calls).toHaveLength(1);
  });

  it('retries POSTs only when they are safe to repeat', async () => {
    const wallet = { chainType: 'evm', type: 'smart', address: '0x2222222222222222222222222222222222222222' };
    const created = { clientSecret: 's', order: order() };
    const fund = { amount: 10, token: 'usdc', chain: 'base-sepolia' } as const;
    const session = {
      jwt: 'j',
      refresh: { secret: 'r', expiresAt: '2030-01-01T00:00:00.000Z' },
      user: { id: 'u' },
    };
    const cases: Array<[string, (client: ProviderClient) => Promise<unknown>, unknown, number]> = [
      ['order without key', (c) => c.createOrder(orderInput), created, 1],
      ['order with key', (c) => c.createOrder(orderInput, { idempotencyKey: 'k' }), created, 2],
      ['faucet without key', (c) => c.fundWallet('0x2222222222222222222222222222222222222222', fund), [], 1],
      [
        'faucet with key',
        (c) => c.fundWallet('0x2222222222222222222222222222222222222222', fund, { idempotencyKey: 'tx' }),
        [],
        2,
      ],
      ['refresh', (c) => c.refreshSession('r'), session, 1],
      [
        'wallet creation',
        (c) => c.createWallet({ owner: 'userId:u', adminSigner: { type: 'api-key' } }),
        wallet,
        2,
      ],
    ];

    for (const [name, call, success, expectedCalls] of cases) {
      const { fetch, calls } = scriptedFetch(json(500, {}), json(200, success));
      await call(clientWith(fetch)).catch(() => undefined);
      expect([name, calls.length]).toEqual([name, expectedCalls]);
    }
  });

  it('does not start a retry that would end past the deadline', async () => {
    useFakeClock();
    const { fetch, calls } = scriptedFetch(json(503, {}));
    const client = clientWith(fetch, {
      timeoutMs: 200,
      retry: { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 1_000 },
    });

    const outcome = settlement(client.getOrder('o-1'));

    // Any back-off (500-1000 ms) would still be running just before the 200 ms deadline.
    await vi.advanceTimersByTimeAsync(199);
    expect(outcome.settled).toBe(true);
    await expect(outcome.promise).resolves.toMatchObject({ kind: 'unavailable', status: 503 });
    expect(calls).toHaveLength(1);
  });
});

describe('ProviderClient deadline', () => {
  it('ends a call the provider never answers with kind timeout at the deadline', async () => {
    useFakeClock();
    const { fetch, calls } = scriptedFetch('hang');
    const outcome = settlement(clientWith(fetch, { timeoutMs: 150 }).getOrder('o-1'));

    await vi.advanceTimersByTimeAsync(149);
    expect(outcome.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome.settled).toBe(true);
    const error = await outcome.promise;

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      kind: 'timeout',
      status: undefined,
      providerMessage: 'no answer within 150 ms',
    });
    expect(calls).toHaveLength(1);
  });

  it('counts earlier attempts against the same deadline', async () => {
    useFakeClock();
    const { fetch, calls } = scriptedFetch(json(503, {}), 'hang');
    // A back-off of 50-100 ms: were the deadline restarted per attempt, the call would last at least 200 ms.
    const retry = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 100 };
    const outcome = settlement(clientWith(fetch, { timeoutMs: 150, retry }).getOrder('o-1'));

    await vi.advanceTimersByTimeAsync(149);
    expect(calls).toHaveLength(2);
    expect(outcome.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome.settled).toBe(true);

    await expect(outcome.promise).resolves.toMatchObject({ kind: 'timeout' });
    expect(calls).toHaveLength(2);
  });
});
