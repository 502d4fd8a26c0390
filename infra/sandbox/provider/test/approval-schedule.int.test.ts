import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderSandbox, startProviderSandbox } from '../src';
import { clientFor, newWebhookSecret, orderInput, uniqueEmail, walletFor } from './fixtures';
import { startWebhookReceiver, WebhookReceiver } from './webhook-receiver';

/** With a stage delay, an approval pays, ships and delivers later, one signed webhook per stage. */
describe('the provider stand-in on its own schedule', () => {
  let sandbox: ProviderSandbox;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    const secret = newWebhookSecret();
    receiver = await startWebhookReceiver(secret);
    sandbox = await startProviderSandbox({
      stageDelayMs: 30,
      webhookRetryDelaysMs: [10],
      webhook: { url: receiver.url, secret },
    });
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  const stagesOf = (orderId: string) =>
    receiver.received.filter((d) => d.event.order.orderId === orderId).map((d) => d.event.type);

  async function until(done: () => boolean): Promise<void> {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  it('answers the approval at once, then sends payment, shipping and delivery in that order', async () => {
    const client = clientFor(sandbox);
    const email = uniqueEmail('schedule');
    const payer = await walletFor(client, email);
    sandbox.fund(payer, '20');
    const { order } = await client.createOrder(orderInput(payer, email, ['12.5']));

    const approved = sandbox.approve(order.orderId);
    expect(approved.phase).toBe('payment');
    expect(() => sandbox.approve(order.orderId)).toThrow(/already approved/);

    await until(() => stagesOf(order.orderId).includes('orders.delivery.completed'));
    expect(stagesOf(order.orderId)).toEqual([
      'orders.quote.created',
      'orders.payment.succeeded',
      'orders.delivery.initiated',
      'orders.delivery.completed',
    ]);
    expect((await client.getOrder(order.orderId)).phase).toBe('completed');
    expect(receiver.rejected).toEqual([]);
  });

  it('fails the payment when the funds are gone by the time it pays', async () => {
    const client = clientFor(sandbox);
    const email = uniqueEmail('schedule-spent');
    const payer = await walletFor(client, email);
    sandbox.fund(payer, '10');
    const first = (await client.createOrder(orderInput(payer, email, ['8']))).order;
    const second = (await client.createOrder(orderInput(payer, email, ['8']))).order;

    sandbox.approve(first.orderId);
    sandbox.approve(second.orderId);

    await until(
      () =>
        stagesOf(first.orderId).includes('orders.delivery.completed') &&
        stagesOf(second.orderId).includes('orders.payment.failed'),
    );
    expect(stagesOf(second.orderId)).toEqual(['orders.quote.created', 'orders.payment.failed']);
  });

  it('lets a page of another origin approve', async () => {
    const preflight = await fetch(`${sandbox.url}/sandbox/orders/any/approve`, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:1', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const api = await fetch(`${sandbox.url}/api/2025-06-09/wallets/none`, {
      headers: { origin: 'http://127.0.0.1:1' },
    });
    expect(api.headers.get('access-control-allow-origin')).toBeNull();
  });
});
