import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCatalogue } from '@shop/contracts';
import { connectNats, EventStore } from '@shop/eventstore';
import { parsePrometheusText, sampleValue } from '@shop/metrics';
import { startTestStack, TestClient, TestStack } from './stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('observe');
});
afterAll(async () => {
  await stack?.stop();
});

const product = {
  productId: 'B0METRICS1',
  productName: 'Metric socks',
  price: 1299,
  image: 'https://example.com/socks.jpg',
  productUrl: 'https://example.com/socks',
  retailer: 'amazon',
};

async function scrape(url: string) {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  return parsePrometheusText(await response.text());
}

describe('who can read the metrics', () => {
  it('serves /metrics on METRICS_PORT only: the public port answers 404 in the envelope', async () => {
    const open = await fetch(`${stack.url}/metrics`);
    const text = await open.text();
    expect(text).not.toContain('# TYPE');
    expect([open.status, (JSON.parse(text) as { code: string }).code]).toEqual([404, 'NOT_FOUND']);
    expect(stack.metricsUrl).not.toBe(stack.url);
    expect((await fetch(`${stack.metricsUrl}/metrics`)).status).toBe(200);
    expect((await fetch(`${stack.metricsUrl}/ready`)).status).toBe(200);
  });
});

describe('gateway /metrics', () => {
  it('exports the catalogue, and the numbers move with traffic', async () => {
    const before = await scrape(stack.metricsUrl);
    const names = new Set(before.map((s) => s.name));
    for (const name of ['process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(names).toContain(name);
    }
    const text = await (await fetch(`${stack.metricsUrl}/metrics`)).text();
    for (const name of [
      'http_request_duration_seconds',
      'events_appended_total',
      'write_to_readable_seconds',
      'read_your_writes_timeouts_total',
      'external_call_duration_seconds',
      'external_call_errors_total',
      'jetstream_consumer_redelivered',
      'jetstream_consumer_pending',
      'aggregate_cache_bytes',
      'aggregate_cache_entries',
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }

    const client = new TestClient(stack.url);
    await client.onboard(`${randomUUID().slice(0, 8)}@example.com`);
    const added = await client.request('POST', '/api/cart', product);
    expect(added.status).toBe(201);
    const removed = await client.request('DELETE', `/api/cart/${added.json.id as string}`);
    expect(removed.status).toBe(204);

    const after = await scrape(stack.metricsUrl);
    const cartPosts = { method: 'POST', route: '/api/cart', status_code: '201' };
    expect(sampleValue(after, 'http_request_duration_seconds_count', cartPosts)).toBe(1);
    expect(
      sampleValue(after, 'http_request_duration_seconds_count', {
        route: '/api/cart/:itemId',
        status_code: '204',
      }),
    ).toBe(1);
    expect(sampleValue(after, 'events_appended_total', { type: 'UserRegistered' })).toBe(1);
    expect(sampleValue(after, 'events_appended_total', { type: 'ItemAdded' })).toBe(1);
    expect(sampleValue(after, 'events_appended_total', { type: 'ItemRemoved' })).toBe(1);
    // Registration, three onboarding steps, add and remove: each waited for its projections.
    expect(sampleValue(after, 'write_to_readable_seconds_count', { aggregate: 'cart' })).toBe(2);
    expect(
      sampleValue(after, 'write_to_readable_seconds_count', { aggregate: 'user' }),
    ).toBeGreaterThanOrEqual(4);
    // Wallet provisioning calls the provider stand-in on registration.
    expect(
      sampleValue(after, 'external_call_duration_seconds_count', { client: 'provider' }),
    ).toBeGreaterThan(0);
    // The user and the cart are folded in the command side's cache, and counted by size.
    expect(sampleValue(after, 'aggregate_cache_entries')).toBeGreaterThanOrEqual(2);
    expect(sampleValue(after, 'aggregate_cache_bytes')).toBeGreaterThan(0);
    const consumers = after
      .filter((s) => s.name === 'jetstream_consumer_pending')
      .map((s) => s.labels.consumer);
    expect(consumers).toEqual(expect.arrayContaining(['gateway_reaction_wallet-provisioning']));
  });
});

describe('gateway /ready and /health', () => {
  it('is ready when NATS, Postgres and Redis answer', async () => {
    const response = await fetch(`${stack.url}/ready`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { ready: boolean; checks: Record<string, { ok: boolean }> };
    expect(body.ready).toBe(true);
    expect(Object.keys(body.checks).sort()).toEqual(['nats', 'postgres', 'redis']);
    expect(Object.values(body.checks).every((c) => c.ok)).toBe(true);
  });

  it('answers 503 naming the dependency that does not answer, while /health stays live', async () => {
    // A second instance whose Redis is a closed port; it still starts (Redis is only caches).
    const url = await stack.startGateway({ REDIS_URL: 'redis://127.0.0.1:1' });
    const response = await fetch(`${url}/ready`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as {
      ready: boolean;
      checks: Record<string, { ok: boolean; error?: string }>;
    };
    expect(body.ready).toBe(false);
    expect(body.checks.redis).toMatchObject({ ok: false, error: expect.any(String) });
    expect(body.checks.nats?.ok).toBe(true);
    expect(body.checks.postgres?.ok).toBe(true);
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
  });
});

describe('correlation ids', () => {
  it('carries the request correlation id into the events it appends', async () => {
    const correlationId = `corr-${randomUUID()}`;
    const client = new TestClient(stack.url);
    await client.onboard(`${randomUUID().slice(0, 8)}@example.com`);
    const added = await client.request(
      'POST',
      '/api/cart',
      { ...product, productId: 'B0CORREL01' },
      {
        'x-correlation-id': correlationId,
      },
    );
    expect(added.status).toBe(201);
    expect(added.headers.get('x-correlation-id')).toBe(correlationId);

    const nc = await connectNats(stack.env.natsUrl, 'assert');
    try {
      const store = await EventStore.create(nc, {
        stream: stack.env.stream,
        subjectPrefix: stack.env.subjectPrefix,
        catalogue: eventCatalogue,
      });
      const { events } = await store.load('cart', added.json.userId as string);
      expect(events.find((e) => e.type === 'ItemAdded')?.correlationId).toBe(correlationId);
    } finally {
      await nc.drain();
    }
  });
});
