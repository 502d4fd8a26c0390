import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordSpans, type SpanRecorder } from '@shop/testing';
import { ProviderClient } from '../src';
import { json, order, scriptedFetch } from './fake-fetch';

let recorder: SpanRecorder;
beforeAll(() => {
  recorder = recordSpans();
});
afterAll(() => recorder.stop());

describe('a provider call in a trace', () => {
  it('is one span whose events name each retry and the failure that caused it', async () => {
    const { fetch } = scriptedFetch(
      json(503, { message: 'busy' }),
      new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } }),
      json(200, order()),
    );
    const client = new ProviderClient({
      baseUrl: 'https://provider.test/',
      apiKey: 'sk_test_key',
      timeoutMs: 1_000,
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 4 },
      fetch,
    });

    await client.getOrder('o-1');

    const span = recorder.span('provider orders.get');
    expect(span.events.map((e) => [e.name, e.attributes?.attempt])).toEqual([
      ['retry', 1],
      ['retry', 2],
    ]);
    expect(String(span.events[0]!.attributes?.reason)).toMatch(/busy|503/);
    expect(String(span.events[1]!.attributes?.reason)).toMatch(/ECONNRESET/);
  });
});
