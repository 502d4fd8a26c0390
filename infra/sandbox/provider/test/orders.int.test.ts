import { ProviderError } from '@shop/provider';
import { decodeFunctionData, erc20Abi, parseTransaction } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderSandbox, startProviderSandbox } from '../src';
import { clientFor, orderInput, uniqueEmail, walletFor } from './fixtures';

const baseSepoliaUsdc = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

describe('provider sandbox orders', () => {
  let sandbox: ProviderSandbox;

  beforeAll(async () => {
    sandbox = await startProviderSandbox();
  });
  afterAll(() => sandbox.close());

  async function fundedPayer(amount: string): Promise<{ email: string; address: string }> {
    const email = uniqueEmail('buyer');
    const address = await walletFor(clientFor(sandbox), email);
    sandbox.fund(address, amount);
    return { email, address };
  }

  it('quotes the caller-supplied prices and prepares the USDC transfer for the payer to approve', async () => {
    const client = clientFor(sandbox);
    const payer = await fundedPayer('50');

    const { clientSecret, order } = await client.createOrder(
      orderInput(payer.address, payer.email, ['12.99', '1.01']),
    );

    expect(clientSecret).toEqual(expect.any(String));
    expect(order).toMatchObject({
      phase: 'payment',
      quote: { status: 'valid', totalPrice: { amount: '14', currency: 'usdc' } },
      payment: {
        status: 'awaiting-payment',
        method: 'base-sepolia',
        currency: 'usdc',
        preparation: { chain: 'base-sepolia', payerAddress: payer.address },
      },
    });
    expect(order.lineItems.map((item) => item.quote?.totalPrice?.amount)).toEqual(['12.99', '1.01']);
    expect(order.lineItems.every((item) => item.delivery?.status === 'awaiting-payment')).toBe(true);

    const serialized = order.payment.preparation?.serializedTransaction as `0x${string}`;
    expect(serialized).toMatch(/^0x02[0-9a-f]+$/);
    const transaction = parseTransaction(serialized);
    expect(transaction).toMatchObject({ type: 'eip1559', chainId: 84532, to: baseSepoliaUsdc.toLowerCase() });
    const transfer = decodeFunctionData({ abi: erc20Abi, data: transaction.data! });
    expect(transfer.functionName).toBe('transfer');
    expect(transfer.args?.[1]).toBe(14_000_000n);
  });

  it('returns the bare current order on GET', async () => {
    const client = clientFor(sandbox);
    const payer = await fundedPayer('20');
    const { order } = await client.createOrder(orderInput(payer.address, payer.email, ['5']));

    expect(await client.getOrder(order.orderId)).toEqual(order);
    sandbox.approve(order.orderId);
    expect(await client.getOrder(order.orderId)).toMatchObject({
      orderId: order.orderId,
      phase: 'completed',
      payment: { status: 'completed', received: { amount: '5', currency: 'usdc' } },
      lineItems: [{ delivery: { status: 'completed', txId: expect.stringMatching(/^0x/) } }],
    });
  });

  it('prices an item without a supplied price the same way every time', async () => {
    const client = clientFor(sandbox);
    const payer = await fundedPayer('500');

    const first = await client.createOrder(orderInput(payer.address, payer.email, [undefined]));
    const second = await client.createOrder(orderInput(payer.address, payer.email, [undefined]));

    const amount = Number(first.order.quote?.totalPrice?.amount);
    expect(second.order.quote?.totalPrice).toEqual(first.order.quote?.totalPrice);
    expect(amount).toBeGreaterThanOrEqual(5);
    expect(amount).toBeLessThan(105);
  });

  it('raises insufficient_funds when the payer cannot cover the quote', async () => {
    const client = clientFor(sandbox);
    const payer = await fundedPayer('3');

    const error = await client
      .createOrder(orderInput(payer.address, payer.email, ['3.50']))
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      kind: 'insufficient_funds',
      status: 201,
      operation: 'orders.create',
      providerCode: 'crypto-payer-insufficient-funds',
    });
  });

  it('creates an underfunded order as the provider does, payable once the payer is funded', async () => {
    const client = clientFor(sandbox);
    const payer = await fundedPayer('1');
    const response = await fetch(`${sandbox.url}/api/2022-06-09/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': sandbox.apiKey },
      body: JSON.stringify(orderInput(payer.address, payer.email, ['2'])),
    });
    const { order } = await response.json();

    expect(response.status).toBe(201);
    expect(order.payment.status).toBe('crypto-payer-insufficient-funds');
    expect(order.payment.preparation).toBeUndefined();
    expect(() => sandbox.approve(order.orderId)).toThrow(/not payable/);

    sandbox.fund(payer.address, '1');
    expect(await client.getOrder(order.orderId)).toMatchObject({
      payment: { status: 'awaiting-payment', preparation: { serializedTransaction: expect.any(String) } },
    });
  });

  it('rejects an order the provider would refuse, with its message', async () => {
    const client = clientFor(sandbox);
    const payer = await fundedPayer('10');
    const withoutState = orderInput(payer.address, payer.email, ['1']);
    withoutState.recipient.physicalAddress.state = undefined;
    const withoutItems = { ...orderInput(payer.address, payer.email, ['1']), lineItems: [] };

    await expect(client.createOrder(withoutState)).rejects.toMatchObject({
      kind: 'rejected',
      status: 400,
      providerMessage: expect.stringMatching(/state is required/),
    });
    await expect(client.createOrder(withoutItems)).rejects.toMatchObject({
      kind: 'rejected',
      providerMessage: expect.stringMatching(/lineItems/),
    });
  });

  it('maps an unknown order to not_found', async () => {
    await expect(clientFor(sandbox).getOrder('3f1c0a56-0000-4000-8000-000000000000')).rejects.toMatchObject({
      kind: 'not_found',
      status: 404,
    });
  });

  it('answers a repeated idempotency key with the first order instead of a second one', async () => {
    const client = clientFor(sandbox);
    const payer = await fundedPayer('10');
    const input = orderInput(payer.address, payer.email, ['4']);

    const first = await client.createOrder(input, { idempotencyKey: 'checkout-7' });
    const repeat = await client.createOrder(input, { idempotencyKey: 'checkout-7' });
    const other = await client.createOrder(input, { idempotencyKey: 'checkout-8' });

    expect(repeat.order.orderId).toBe(first.order.orderId);
    expect(other.order.orderId).not.toBe(first.order.orderId);
  });
});
