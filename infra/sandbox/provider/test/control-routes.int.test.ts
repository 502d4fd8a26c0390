import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderSandbox, startProviderSandbox } from '../src';
import { clientFor, newWebhookSecret, orderInput, uniqueEmail, walletFor } from './fixtures';
import { startWebhookReceiver, WebhookReceiver } from './webhook-receiver';

/** The same controls as the handle, over HTTP, for a stand-in started with main.ts. */
describe('provider sandbox control routes', () => {
  let sandbox: ProviderSandbox;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    sandbox = await startProviderSandbox({ webhookRetryDelaysMs: [10] });
    const secret = newWebhookSecret();
    receiver = await startWebhookReceiver(secret);
    await call('PUT', '/sandbox/webhook-target', { url: receiver.url, secret });
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  async function call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  it('issues a session token for an email', async () => {
    const email = uniqueEmail('route');
    const { status, body } = await call('POST', '/sandbox/auth/tokens', { email, ttlSeconds: 300 });

    expect(status).toBe(201);
    const session = body as { jwt: string; user: { id: string } };
    const { payload } = await jwtVerify(session.jwt, createRemoteJWKSet(new URL(sandbox.jwksUrl)));
    expect(payload).toMatchObject({ sub: session.user.id, email });
  });

  it('funds, approves out of order and lists the signed deliveries, which can be sent again', async () => {
    const client = clientFor(sandbox);
    const email = uniqueEmail('route-order');
    const payer = await walletFor(client, email);

    expect(await call('POST', `/sandbox/wallets/${payer}/fund`, { amount: '9.5' })).toEqual({
      status: 200,
      body: { balance: '9.5' },
    });
    const { order } = await client.createOrder(orderInput(payer, email, ['9.5']));
    const approved = await call('POST', `/sandbox/orders/${order.orderId}/approve`, {
      webhookOrder: 'reversed',
    });
    await sandbox.waitForDeliveries();
    const { body: log } = await call('GET', '/sandbox/webhooks');
    const messages = (log as Array<{ svixId: string; type: string; orderId: string; state: string }>).filter(
      (message) => message.orderId === order.orderId,
    );

    expect(approved).toMatchObject({ status: 200, body: { phase: 'completed' } });
    expect(messages.map((message) => [message.type, message.state])).toEqual([
      ['orders.quote.created', 'delivered'],
      ['orders.delivery.completed', 'delivered'],
      ['orders.delivery.initiated', 'delivered'],
      ['orders.payment.succeeded', 'delivered'],
    ]);

    const resent = messages[1]!.svixId;
    expect((await call('POST', `/sandbox/webhooks/${resent}/redeliver`)).status).toBe(202);
    await sandbox.waitForDeliveries();
    expect(receiver.received.filter((delivery) => delivery.svixId === resent)).toHaveLength(2);
  });

  it('fails an order at delivery', async () => {
    const client = clientFor(sandbox);
    const email = uniqueEmail('route-fail');
    const payer = await walletFor(client, email);
    sandbox.fund(payer, '3');
    const { order } = await client.createOrder(orderInput(payer, email, ['3']));

    const failed = await call('POST', `/sandbox/orders/${order.orderId}/fail`, {
      stage: 'delivery',
      reason: 'out of stock',
    });

    expect(failed).toMatchObject({ status: 200, body: { lineItems: [{ delivery: { status: 'failed' } }] } });
  });

  it('injects faults until cleared', async () => {
    const client = clientFor(sandbox, { retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });

    expect(
      (await call('POST', '/sandbox/faults', { operation: 'wallets.get', times: 2, status: 504 })).status,
    ).toBe(204);
    await expect(client.getWallet(`email:${uniqueEmail('x')}:evm`)).rejects.toMatchObject({ status: 504 });
    expect((await call('DELETE', '/sandbox/faults')).status).toBe(204);
    await expect(client.getWallet(`email:${uniqueEmail('x')}:evm`)).rejects.toMatchObject({
      kind: 'not_found',
    });
  });

  it('answers bad control requests in the provider error shape', async () => {
    expect(await call('POST', '/sandbox/orders/missing/approve')).toEqual({
      status: 404,
      body: { error: true, message: 'Order missing not found', code: 'order-not-found' },
    });
    expect(await call('POST', '/sandbox/faults', { operation: 'orders.delete' })).toMatchObject({
      status: 400,
      body: { error: true, code: 'invalid-request' },
    });
    expect(
      await call('PUT', '/sandbox/webhook-target', { url: receiver.url, secret: 'whsec_' }),
    ).toMatchObject({
      status: 400,
      body: { error: true, message: expect.stringMatching(/webhook secret/) },
    });
  });
});
