import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSuiSandbox, SuiSandbox } from '@shop/sandbox-sui';
import { traceInto, type Tracing } from '@shop/tracing';
import { eventually, startTestStack, TestClient, TestStack } from './stack';

/**
 * The gateway, projector and provider stand-in run in this process (as the other gateway tests
 * run them) under one tracer provider exporting to memory. Their spans are tied together only
 * through what crosses NATS and HTTP: the trace context in a commit's headers and in the
 * provider call's `traceparent`, never through the process's own async context, since the
 * projector and the reactions take their messages on their own consumers.
 */
const USDC = '0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC';
const secret = 'deposit-secret-0123456789abcdef';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let stack: TestStack;
let sui: SuiSandbox;

beforeAll(async () => {
  tracing = await traceInto('shop-test', new SimpleSpanProcessor(exporter));
  // A service starts tracing before anything loads http; vitest loaded it first, and the
  // instrumentation patches it on the next require, as it would on a service's first one.
  createRequire(import.meta.url)('node:http');
  sui = await startSuiSandbox({ port: 0 });
  stack = await startTestStack('trace', {
    DEPOSIT_WEBHOOK_SECRET: secret,
    CHAIN_COIN_TYPE: USDC,
    CHAIN_RPC_URL: sui.url,
  });
});
afterAll(async () => {
  await stack?.stop();
  await sui?.close();
  await tracing?.shutdown();
});

const spans = () => exporter.getFinishedSpans();
const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const traceOf = (span: ReadableSpan) => span.spanContext().traceId;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

/** The gateway's server span of one request, by method and path. */
function serverSpan(method: string, path: string): ReadableSpan | undefined {
  return spans().find(
    (s) =>
      s.kind === SpanKind.SERVER &&
      (s.attributes['http.method'] ?? s.attributes['http.request.method']) === method &&
      (s.attributes['http.target'] ?? s.attributes['url.path']) === path,
  );
}

async function spansOfTrace(
  traceId: string,
  done: (trace: ReadableSpan[]) => boolean,
): Promise<ReadableSpan[]> {
  return eventually(async () => spans().filter((s) => traceOf(s) === traceId), done);
}

/** `span` descends from `ancestor` through parent links within the trace. */
function descendsFrom(trace: ReadableSpan[], span: ReadableSpan, ancestor: ReadableSpan): boolean {
  const byId = new Map(trace.map((s) => [idOf(s), s]));
  for (let at = parentOf(span); at; at = byId.get(at) && parentOf(byId.get(at)!)) {
    if (at === idOf(ancestor)) return true;
  }
  return false;
}

describe('one trace from a request to the read model', () => {
  it('follows POST /api/cart from the HTTP span through the append to the projector apply', async () => {
    const client = new TestClient(stack.url);
    await client.onboard(`${randomUUID().slice(0, 8)}@example.com`);
    const created = await client.request('POST', '/api/cart', {
      productId: 'B000000001',
      productName: 'Trail runner 1',
      price: 8999,
      image: 'https://images.example.com/1.jpg',
      productUrl: 'https://shop.example.com/dp/1',
      retailer: 'Example Outfitters',
    });
    expect(created.status).toBe(201);

    const http = serverSpan('POST', '/api/cart');
    expect(http, 'the gateway traced the request').toBeDefined();
    expect(http!.name, 'named after its route').toBe('POST /api/cart');
    const trace = await spansOfTrace(traceOf(http!), (t) =>
      t.some(
        (s) => s.name.startsWith('process') && s.attributes['messaging.consumer.group.name'] === 'cart_items',
      ),
    );
    const append = trace.find((s) => s.name === `publish ${stack.env.subjectPrefix}.cart.*`);
    expect(append, 'the append is a span of the request').toBeDefined();
    expect(append!.kind).toBe(SpanKind.PRODUCER);
    expect(append!.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.operation.type': 'send',
    });
    expect(append!.attributes['messaging.destination.name']).toMatch(
      new RegExp(`^${stack.env.subjectPrefix}\\.cart\\.`),
    );
    expect(append!.attributes['messaging.nats.stream.sequence']).toBeGreaterThan(0);
    expect(descendsFrom(trace, append!, http!)).toBe(true);

    const apply = trace.find(
      (s) => s.name.startsWith('process') && s.attributes['messaging.consumer.group.name'] === 'cart_items',
    )!;
    expect(apply.kind).toBe(SpanKind.CONSUMER);
    expect(apply.links.map((l) => l.context.spanId)).toContain(idOf(append!));
    expect(parentOf(apply)).toBe(idOf(append!));

    const wait = trace.find((s) => s.name === 'read-your-writes wait');
    expect(wait, 'the read-your-writes wait is a span of the request').toBeDefined();
    expect(descendsFrom(trace, wait!, http!)).toBe(true);
  });

  it('follows a deposit confirmation through the append, the projector, the reaction and the provider call', async () => {
    const client = new TestClient(stack.url);
    const userId = await client.onboard(`${randomUUID().slice(0, 8)}@example.com`);
    const profile = await eventually(
      () => client.request('GET', '/api/auth/profile'),
      (r) => r.json.walletStatus === 'active',
    );
    const path = `/api/deposit/${userId}/${profile.json.walletAddress as string}/confirm`;
    const confirmed = await new TestClient(stack.url).request(
      'POST',
      path,
      {
        amount: '1000000',
        transactionHash: `Dig3st${randomUUID().replace(/-/g, '')}`,
        network: 'testnet',
        currency: USDC,
      },
      { 'x-webhook-secret': secret },
    );
    expect(confirmed.status).toBe(200);

    const http = serverSpan('POST', path);
    expect(http, 'the gateway traced the confirmation').toBeDefined();
    const isReaction = (s: ReadableSpan) =>
      s.attributes['messaging.consumer.group.name'] === 'deposit-crediting';
    const trace = await spansOfTrace(traceOf(http!), (t) =>
      t.some((s) => s.name === 'provider wallets.fund' && t.some(isReaction)),
    );
    const append = trace.find((s) => s.name === `publish ${stack.env.subjectPrefix}.deposit.*`);
    expect(append, 'the claim is appended within the request').toBeDefined();
    expect(descendsFrom(trace, append!, http!)).toBe(true);

    const apply = trace.find(
      (s) => s.name.startsWith('process') && s.attributes['messaging.batch.message_count'] !== undefined,
    );
    expect(apply, "the projector's apply of the claim").toBeDefined();
    expect(apply!.links.map((l) => l.context.spanId)).toContain(idOf(append!));

    const reaction = trace.find(isReaction)!;
    expect(reaction.name).toBe(`process ${stack.env.subjectPrefix}.deposit.*`);
    expect(reaction.kind).toBe(SpanKind.CONSUMER);
    expect(parentOf(reaction)).toBe(idOf(append!));
    expect(reaction.attributes['messaging.nats.stream.sequence']).toBe(
      append!.attributes['messaging.nats.stream.sequence'],
    );

    const providerCall = trace.find((s) => s.name === 'provider wallets.fund')!;
    expect(descendsFrom(trace, providerCall, reaction)).toBe(true);
    const outgoing = trace.find((s) => s.kind === SpanKind.CLIENT && descendsFrom(trace, s, providerCall));
    expect(outgoing, 'the provider call went out over traced fetch').toBeDefined();
    const atProvider = trace.find((s) => s.kind === SpanKind.SERVER && parentOf(s) === idOf(outgoing!));
    expect(atProvider, 'the provider stand-in continued the trace from the traceparent header').toBeDefined();
  });
});
