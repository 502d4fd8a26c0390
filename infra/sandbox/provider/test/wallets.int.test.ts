import { emailOwner, emailWalletLocator, ProviderError } from '@shop/provider';
import { getAddress, isAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderSandbox, startProviderSandbox } from '../src';
import { clientFor, uniqueEmail, walletFor } from './fixtures';

describe('provider sandbox wallets', () => {
  let sandbox: ProviderSandbox;

  beforeAll(async () => {
    sandbox = await startProviderSandbox({ apiKey: 'sk_test_wallets' });
  });
  afterAll(() => sandbox.close());

  const createRaw = (email: string) =>
    fetch(`${sandbox.url}/api/2025-06-09/wallets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': sandbox.apiKey },
      body: JSON.stringify({
        chainType: 'evm',
        type: 'smart',
        config: { adminSigner: { type: 'email', email } },
        owner: emailOwner(email),
      }),
    });

  it('creates one checksummed EVM smart wallet per owner: 201 first, then 200 with the same wallet', async () => {
    const email = uniqueEmail('create');
    const first = await createRaw(email);
    const again = await createRaw(email);
    const firstWallet = await first.json();

    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(firstWallet);
    expect(isAddress(firstWallet.address, { strict: true })).toBe(true);
    expect(firstWallet.address).toBe(getAddress(firstWallet.address));
    expect(firstWallet).toMatchObject({
      chainType: 'evm',
      type: 'smart',
      owner: emailOwner(email),
      config: { adminSigner: { type: 'email', email, locator: `email:${email}` } },
    });
  });

  it('finds a wallet by address and by email locator, and gives the client the same wallet on repeat', async () => {
    const client = clientFor(sandbox);
    const email = uniqueEmail('locate');
    const created = await client.createWallet({
      owner: emailOwner(email),
      adminSigner: { type: 'email', email },
    });
    const repeated = await client.createWallet({
      owner: emailOwner(email),
      adminSigner: { type: 'email', email },
    });

    expect(repeated.address).toBe(created.address);
    expect(await client.getWallet(created.address)).toEqual(created);
    expect(await client.getWallet(created.address.toLowerCase())).toEqual(created);
    expect(await client.getWallet(emailWalletLocator(email))).toEqual(created);
    expect(await client.getWallet(`${emailWalletLocator(email.toUpperCase())}:smart`)).toEqual(created);
  });

  it('reports zero, then funded USDC balances per chain in the 2025-06-09 array format', async () => {
    const client = clientFor(sandbox);
    const email = uniqueEmail('balances');
    const address = await walletFor(client, email);
    const query = { tokens: ['usdc'], chains: ['base-sepolia', 'ethereum-sepolia'] };

    const before = await client.getBalances(address, query);
    const funded = await client.fundWallet(emailWalletLocator(email), {
      amount: 25.5,
      token: 'usdc',
      chain: 'base-sepolia',
    });
    const after = await client.getBalances(emailWalletLocator(email), query);

    expect(before).toEqual([
      expect.objectContaining({ symbol: 'usdc', decimals: 6, amount: '0', rawAmount: '0' }),
    ]);
    expect(funded).toEqual([
      {
        token: 'usdc',
        decimals: 6,
        balances: { 'base-sepolia': '25500000', 'ethereum-sepolia': '0', total: '25500000' },
      },
    ]);
    expect(after).toEqual([
      {
        symbol: 'usdc',
        name: 'USD Coin',
        decimals: 6,
        amount: '25.5',
        rawAmount: '25500000',
        chains: {
          'base-sepolia': {
            locator: 'base-sepolia:0x036CbD53842c5426634e7929541eC2318f3dCF7e',
            amount: '25.5',
            rawAmount: '25500000',
            contractAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
          },
          'ethereum-sepolia': expect.objectContaining({ amount: '0', rawAmount: '0' }),
        },
      },
    ]);
  });

  it('credits a faucet call once per idempotency key, and test funding adds on top', async () => {
    const client = clientFor(sandbox);
    const email = uniqueEmail('faucet');
    const address = await walletFor(client, email);
    const input = { amount: 10, token: 'usdxm', chain: 'base-sepolia' } as const;

    await client.fundWallet(address, input, { idempotencyKey: 'deposit-tx-1' });
    const repeat = await client.fundWallet(address, input, { idempotencyKey: 'deposit-tx-1' });
    const balance = sandbox.fund(address, '0.25');

    expect(repeat[0]?.balances.total).toBe('10000000');
    expect(balance).toBe('10.25');
  });

  it('maps an unknown wallet to not_found and a malformed locator to rejected', async () => {
    const client = clientFor(sandbox);

    await expect(client.getWallet('0x000000000000000000000000000000000000dEaD')).rejects.toMatchObject({
      kind: 'not_found',
      status: 404,
    });
    await expect(client.getWallet('email:nobody@example.com:evm')).rejects.toMatchObject({
      kind: 'not_found',
    });
    await expect(client.getWallet('not-a-locator')).rejects.toMatchObject({ kind: 'rejected', status: 400 });
  });

  it('refuses a missing or wrong API key with 401 in the provider error shape', async () => {
    const missing = await fetch(`${sandbox.url}/api/2025-06-09/wallets/email:a@b.co:evm`);
    const wrong = clientFor(sandbox, { apiKey: 'sk_wrong' });

    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ error: true, message: expect.stringMatching(/API key/) });
    const error = await wrong.getWallet('email:a@b.co:evm').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      kind: 'unauthorized',
      status: 401,
      providerMessage: expect.stringMatching(/API key/),
    });
  });
});
