import { randomUUID } from 'node:crypto';
import { SuiClient } from '@mysten/sui/client';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSuiSandbox, type SuiSandbox } from '../src';

const USDC = '0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC';

describe("the Sui stand-in's faucet and test wallet", () => {
  let sandbox: SuiSandbox;
  let client: SuiClient;
  beforeAll(async () => {
    sandbox = await startSuiSandbox({ port: 0 });
    client = new SuiClient({ url: sandbox.url });
  });
  afterAll(() => sandbox.close());

  const post = (path: string, body: unknown) =>
    fetch(`${sandbox.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1:1' },
      body: JSON.stringify(body),
    });

  it('mints test USDC to an address, and its wallet pays it through the payment package with a receipt', async () => {
    const shopper = Ed25519Keypair.generate().toSuiAddress();
    const funded = await post('/sandbox/faucet', { address: shopper, coinType: USDC, amountMist: '5000000' });
    expect(funded.status).toBe(200);
    expect(funded.headers.get('access-control-allow-origin')).toBe('*');
    expect((await client.getBalance({ owner: shopper, coinType: USDC })).totalBalance).toBe('5000000');

    const nonce = randomUUID();
    const paid = await post('/sandbox/payments', {
      payer: shopper,
      receiver: shopper,
      coinType: USDC,
      amountMist: '2000000',
      nonce,
    });
    const { digest } = (await paid.json()) as { digest: string };
    const transaction = await client.getTransactionBlock({
      digest,
      options: { showInput: true, showEffects: true, showEvents: true },
    });
    expect(transaction.effects?.status.status).toBe('success');
    expect(transaction.transaction?.data.sender).toBe(shopper);
    expect(transaction.events).toMatchObject([
      {
        type: `${sandbox.paymentPackageId}::payment::PaymentReceipt`,
        parsedJson: { nonce, amount: '2000000', receiver: shopper, payer: shopper },
      },
    ]);
    // Paid to itself, the wallet keeps the amount, in two coins now.
    expect(await client.getBalance({ owner: shopper, coinType: USDC })).toMatchObject({
      totalBalance: '5000000',
      coinObjectCount: 2,
    });
  });

  it('moves the coins from payer to receiver, and refuses a payment beyond the balance without recording it', async () => {
    const payer = Ed25519Keypair.generate().toSuiAddress();
    const receiver = Ed25519Keypair.generate().toSuiAddress();
    sandbox.faucet(payer, USDC, 3_000_000n);
    sandbox.payFromWallet({ payer, receiver, coinType: USDC, amountMist: 1_000_000n, nonce: 'a' });
    expect([sandbox.balance(payer, USDC), sandbox.balance(receiver, USDC)]).toEqual([2_000_000n, 1_000_000n]);

    const before = await client.queryEvents({
      query: { MoveEventType: `${sandbox.paymentPackageId}::payment::PaymentReceipt` },
    });
    const refused = await post('/sandbox/payments', {
      payer,
      receiver,
      coinType: USDC,
      amountMist: '2000001',
      nonce: 'b',
    });
    expect(refused.status).toBe(409);
    const after = await client.queryEvents({
      query: { MoveEventType: `${sandbox.paymentPackageId}::payment::PaymentReceipt` },
    });
    expect(after.data).toHaveLength(before.data.length);
    expect(sandbox.balance(payer, USDC)).toBe(2_000_000n);
  });

  it('answers a browser preflight', async () => {
    const preflight = await fetch(`${sandbox.url}/sandbox/faucet`, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:1', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');
  });
});
