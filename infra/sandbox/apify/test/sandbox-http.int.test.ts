import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateListing } from '../src/listing-items';
import { startApifySandbox, type ApifySandbox } from '../src/server';

const token = 'sandbox-http-token';
let sandbox: ApifySandbox;

beforeAll(async () => {
  sandbox = await startApifySandbox({ port: 0, token });
});
afterAll(async () => {
  await sandbox.close();
});

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${sandbox.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
  });

async function startRun(prefix: 'acts' | 'actors', query = '') {
  const response = await call(`/v2/${prefix}/apify~e-commerce-scraping-tool/runs${query}`, {
    method: 'POST',
    body: JSON.stringify({ listingUrls: [{ url: 'https://www.amazon.com/s?k=wool+socks' }] }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: { id: string; status: string; defaultDatasetId: string } }).data;
}

describe('the scraping platform sandbox over HTTP', () => {
  it("answers a wrong or missing token with 401 and the platform's error body", async () => {
    for (const headers of [{ authorization: 'Bearer wrong' }, { authorization: '' }]) {
      const response = await fetch(`${sandbox.url}/v2/users/me`, { headers });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        error: { type: 'token-not-valid', message: expect.any(String) },
      });
    }
  });

  it('accepts the token as a query parameter', async () => {
    const response = await fetch(`${sandbox.url}/v2/users/me?token=${token}`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { id: string } }).data.id).toMatch(/^\w{17}$/);
  });

  it('serves the actor under both /v2/acts and /v2/actors, and 404s other actors', async () => {
    for (const prefix of ['acts', 'actors'] as const) {
      const response = await call(`/v2/${prefix}/apify~e-commerce-scraping-tool`);
      expect(((await response.json()) as { data: { name: string } }).data.name).toBe(
        'e-commerce-scraping-tool',
      );
      expect((await startRun(prefix)).status).toBe('RUNNING');
    }
    const unknown = await call('/v2/actors/someone~else/runs', {
      method: 'POST',
      body: '{"listingUrls":[]}',
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { type: 'record-not-found' } });
  });

  it('rejects input without listing URLs', async () => {
    const response = await call('/v2/actors/apify~e-commerce-scraping-tool/runs', {
      method: 'POST',
      body: JSON.stringify({ keyword: 'socks' }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { type: 'invalid-input' } });
  });

  it('holds waitForFinish until the run ends, then pages the dataset with the pagination headers', async () => {
    const run = await startRun('actors', '?timeout=300');
    const finished = await call(`/v2/actor-runs/${run.id}?waitForFinish=5`);
    const data = (
      (await finished.json()) as { data: { status: string; finishedAt: string; options: object } }
    ).data;
    expect(data).toMatchObject({ status: 'SUCCEEDED', options: { timeoutSecs: 300 } });
    expect(Date.parse(data.finishedAt)).not.toBeNaN();

    const expected = generateListing('https://www.amazon.com/s?k=wool+socks').items;
    const page = await call(`/v2/datasets/${run.defaultDatasetId}/items?offset=2&limit=3`);
    expect(await page.json()).toEqual(expected.slice(2, 5));
    expect(page.headers.get('x-apify-pagination-total')).toBe(String(expected.length));
    expect(page.headers.get('x-apify-pagination-offset')).toBe('2');
    expect(page.headers.get('x-apify-pagination-limit')).toBe('3');
    expect(page.headers.get('x-apify-pagination-count')).toBe('3');
    expect(page.headers.get('x-apify-pagination-desc')).toBe('false');
  });

  it('streams the run log until the run ends', async () => {
    const run = await startRun('actors');
    const log = await call(`/v2/actor-runs/${run.id}/log?stream=1&raw=1`);
    expect(log.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await log.text()).toMatch(/Finished!/);
  });

  it('lets the control route script the next run', async () => {
    const scripted = await call('/_sandbox/next-run', {
      method: 'POST',
      body: JSON.stringify({ status: 'ABORTED', durationMs: 5 }),
    });
    expect(scripted.status).toBe(204);
    const run = await startRun('actors');
    const finished = await call(`/v2/actor-runs/${run.id}?waitForFinish=5`);
    expect(((await finished.json()) as { data: { status: string } }).data.status).toBe('ABORTED');

    const invalid = await call('/_sandbox/next-run', {
      method: 'POST',
      body: JSON.stringify({ status: 'SUCCEEDED' }),
    });
    expect(invalid.status).toBe(400);
  });

  it('answers a body that is not JSON with the platform error body', async () => {
    const response = await call('/v2/actors/apify~e-commerce-scraping-tool/runs', {
      method: 'POST',
      body: '{',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { type: 'invalid-request' } });
  });

  it('answers unknown paths with the platform error body', async () => {
    const response = await call('/v2/nothing-here');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { type: 'page-not-found' } });
  });
});
