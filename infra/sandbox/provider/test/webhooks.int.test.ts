import { ProviderClient } from '@shop/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderSandbox, ProviderSandboxOptions, startProviderSandbox } from '../src';
import { clientFor, newWebhookSecret, orderInput, uniqueEmail, walletFor } from './fixtures';
import { ReceivedDelivery, startWebhookReceiver, WebhookReceiver } from './webhook-receiver';

describe('provider sandbox webhooks', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp(
    statusFor?: (delivery: ReceivedDelivery, earlierWithSameId: number) => number,
    options: ProviderSandboxOptions = {},
  ): Promise<{ sandbox: ProviderSandbox; receiver: WebhookReceiver; client: ProviderClient }> {
    const secret = newWebhookSecret();
    const receiver = await startWebhookReceiver(secret, statusFor);
    cleanups.push(() => receiver.close());
    const sandbox = await startProviderSandbox({
      webhook: { url: receiver.url, secret },
      webhookRetryDelaysMs: [20, 40],
      ...options,
    });
    cleanups.push(() => sandbox.close());
    return { sandbox, receiver, client: clientFor(sandbox) };
  }

  async function payableOrder(sandbox: ProviderSandbox, client: ProviderClient, price = '12.5') {
    const email = uniqueEmail('hooks');
    const payer = await walletFor(client, email);
    sandbox.fund(payer, '20');
    const { order } = await client.createOrder(orderInput(payer, email, [price]));
    return { payer, order };
  }

  const typesOf = (receiver: WebhookReceiver) => receiver.received.map((delivery) => delivery.event.type);

  it('delivers the signed approval sequence in order and takes the payment from the payer', async () => {
    const { sandbox, receiver, client } = await setUp();
    const { payer, order } = await payableOrder(sandbox, client);

    sandbox.approve(order.orderId);
    await sandbox.waitForDeliveries();

    expect(receiver.rejected).toEqual([]);
    expect(typesOf(receiver)).toEqual([
      'orders.quote.created',
      'orders.payment.succeeded',
      'orders.delivery.initiated',
      'orders.delivery.completed',
    ]);
    const [, paid, , completed] = receiver.received;
    expect(paid?.event).toMatchObject({
      actionId: expect.any(String),
      order: {
        orderId: order.orderId,
        phase: 'delivery',
        payment: { status: 'completed', received: { amount: '12.5', currency: 'usdc' } },
        lineItems: [{ delivery: { status: 'in-progress' } }],
      },
    });
    expect(completed?.event.order).toMatchObject({
      phase: 'completed',
      lineItems: [{ delivery: { status: 'completed' } }],
    });
    expect(new Set(receiver.received.map((delivery) => delivery.svixId)).size).toBe(4);
    const [balance] = await client.getBalances(payer, { tokens: ['usdc'], chains: ['base-sepolia'] });
    expect(balance?.amount).toBe('7.5');
  });

  it('retries a delivery the receiver refused, under the same svix-id with a fresh timestamp and signature', async () => {
    const { sandbox, receiver, client } = await setUp((_delivery, earlier) => (earlier === 0 ? 500 : 200), {
      webhookRetryDelaysMs: [1_100],
    });
    const { order } = await payableOrder(sandbox, client);
    await sandbox.waitForDeliveries();

    const created = receiver.received.filter((delivery) => delivery.event.type === 'orders.quote.created');
    expect(created).toHaveLength(2);
    const [refused, accepted] = created;
    expect(accepted?.svixId).toBe(refused?.svixId);
    expect(Number(accepted?.timestamp)).toBeGreaterThan(Number(refused?.timestamp));
    expect(accepted?.signature).not.toBe(refused?.signature);
    expect(accepted?.event.order.orderId).toBe(order.orderId);
    expect(receiver.rejected).toEqual([]);
    expect(sandbox.deliveries()[0]).toMatchObject({
      svixId: refused?.svixId,
      state: 'delivered',
      attempts: [{ status: 500 }, { status: 200 }],
    });
  });

  it('gives up after the bounded number of attempts, counting network errors as failures', async () => {
    const { sandbox, client } = await setUp(() => 503);
    const { order } = await payableOrder(sandbox, client);
    await sandbox.waitForDeliveries();
    const unreachable = await startWebhookReceiver(newWebhookSecret());
    await unreachable.close();
    sandbox.setWebhookTarget(unreachable.url, newWebhookSecret());

    sandbox.approve(order.orderId);
    await sandbox.waitForDeliveries();

    const [refused, ...undeliverable] = sandbox.deliveries();
    expect(refused).toMatchObject({
      state: 'failed',
      attempts: [{ status: 503 }, { status: 503 }, { status: 503 }],
    });
    expect(undeliverable).toHaveLength(3);
    for (const message of undeliverable) {
      expect(message.state).toBe('failed');
      expect(message.attempts).toHaveLength(3);
      expect(message.attempts.every((attempt) => attempt.error && attempt.status === undefined)).toBe(true);
    }
  });

  it('sends a duplicate under the same svix-id on request', async () => {
    const { sandbox, receiver, client } = await setUp();
    const { order } = await payableOrder(sandbox, client);
    sandbox.approve(order.orderId);
    await sandbox.waitForDeliveries();
    const completed = receiver.received.find(
      (delivery) => delivery.event.type === 'orders.delivery.completed',
    );

    sandbox.redeliver(completed!.svixId);
    await sandbox.waitForDeliveries();

    const copies = receiver.received.filter((delivery) => delivery.svixId === completed!.svixId);
    expect(copies).toHaveLength(2);
    expect(copies[1]?.event).toEqual(copies[0]?.event);
    expect(receiver.rejected).toEqual([]);
  });

  it('can deliver the approval sequence out of order', async () => {
    const { sandbox, receiver, client } = await setUp();
    const { order } = await payableOrder(sandbox, client);
    await sandbox.waitForDeliveries();

    sandbox.approve(order.orderId, { webhookOrder: 'reversed' });
    await sandbox.waitForDeliveries();

    expect(typesOf(receiver).slice(1)).toEqual([
      'orders.delivery.completed',
      'orders.delivery.initiated',
      'orders.payment.succeeded',
    ]);
  });

  it('sends payment failures and leaves the payer untouched', async () => {
    const { sandbox, receiver, client } = await setUp();
    const { payer, order } = await payableOrder(sandbox, client);

    sandbox.fail(order.orderId, 'payment', 'card declined by the chain');
    await sandbox.waitForDeliveries();

    expect(typesOf(receiver)).toEqual(['orders.quote.created', 'orders.payment.failed']);
    expect(receiver.received[1]?.event.order).toMatchObject({
      phase: 'payment',
      payment: { status: 'failed', failureReason: { message: 'card declined by the chain' } },
    });
    const [balance] = await client.getBalances(payer, { tokens: ['usdc'], chains: ['base-sepolia'] });
    expect(balance?.amount).toBe('20');
    expect(() => sandbox.approve(order.orderId)).toThrow(/not payable/);
  });

  it('sends delivery failures after payment and refunds the payer', async () => {
    const { sandbox, receiver, client } = await setUp();
    const { payer, order } = await payableOrder(sandbox, client);

    sandbox.fail(order.orderId, 'delivery');
    await sandbox.waitForDeliveries();

    expect(typesOf(receiver).slice(1)).toEqual([
      'orders.payment.succeeded',
      'orders.delivery.initiated',
      'orders.delivery.failed',
    ]);
    expect(receiver.received[3]?.event.order).toMatchObject({
      phase: 'completed',
      payment: { status: 'completed', refunded: { amount: '12.5' } },
      lineItems: [{ delivery: { status: 'failed' } }],
    });
    const [balance] = await client.getBalances(payer, { tokens: ['usdc'], chains: ['base-sepolia'] });
    expect(balance?.amount).toBe('20');
  });

  it('logs events without sending them while no endpoint is configured', async () => {
    const sandbox = await startProviderSandbox();
    cleanups.push(() => sandbox.close());
    const { order } = await payableOrder(sandbox, clientFor(sandbox));

    await sandbox.waitForDeliveries();

    expect(sandbox.deliveries()).toEqual([
      expect.objectContaining({
        type: 'orders.quote.created',
        orderId: order.orderId,
        state: 'no-endpoint',
        attempts: [],
      }),
    ]);
  });
});
