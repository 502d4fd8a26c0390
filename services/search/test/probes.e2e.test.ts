import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsEndpoint, parsePrometheusText, sampleValue } from '@shop/metrics';
import { ApiClient, newAddress, SearchStack, startSearchStack } from './stack';

let stack: SearchStack;

beforeAll(async () => {
  stack = await startSearchStack('probes');
});
afterAll(async () => stack?.stop());

async function scrape() {
  const response = await fetch(`${stack.app.get(MetricsEndpoint).url}/metrics`);
  expect(response.status).toBe(200);
  return parsePrometheusText(await response.text());
}

describe('who can read the metrics', () => {
  it('serves /metrics on METRICS_PORT only: the public port does not', async () => {
    const open = await fetch(`${stack.url}/metrics`);
    expect(await open.text()).not.toContain('# TYPE');
    expect(open.status).toBe(404);
  });
});

describe('search /metrics', () => {
  it('counts payment events, chain calls, HTTP requests and its projection progress', async () => {
    const digest = stack.sui.createPayment({
      payer: newAddress(),
      receiver: stack.merchant,
      amountMist: 1_500_000_000n,
      coinType: '0x2::sui::SUI',
      nonce: randomUUID(),
      failed: false,
    });
    const verified = await new ApiClient(stack.url).request('POST', '/api/payment/verify', {
      txHash: digest,
      userId: randomUUID(),
    });
    expect(verified.status).toBe(200);

    const samples = await scrape();
    expect(sampleValue(samples, 'events_appended_total', { type: 'PaymentVerificationStarted' })).toBe(1);
    expect(sampleValue(samples, 'external_call_duration_seconds_count', { client: 'chain' })).toBeGreaterThan(
      0,
    );
    expect(sampleValue(samples, 'write_to_readable_seconds_count', { aggregate: 'payment' })).toBeGreaterThan(
      0,
    );
    expect(
      sampleValue(samples, 'http_request_duration_seconds_count', {
        route: '/api/payment/verify',
        status_code: '200',
      }),
    ).toBe(1);
    expect(sampleValue(samples, 'projection_lag_events', { projection: 'payment_transactions' })).toBe(0);
    const checkpoint = sampleValue(samples, 'projection_checkpoint', { projection: 'payment_transactions' });
    expect(checkpoint).toBe(sampleValue(samples, 'stream_last_sequence'));
    expect(checkpoint).toBeGreaterThan(0);
  });
});

describe('search /ready', () => {
  it('is ready with NATS, Postgres and Redis answering', async () => {
    const response = await fetch(`${stack.url}/ready`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      ready: true,
      checks: { nats: { ok: true }, postgres: { ok: true }, redis: { ok: true } },
    });
  });
});
