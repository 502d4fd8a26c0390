import { parse, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, SearchStack, startSearchStack, uniqueWords } from './stack';

let stack: SearchStack;

beforeAll(async () => {
  stack = await startSearchStack('searchapi');
});
afterAll(async () => stack?.stop());

const searchPath = (q: string, extra = '') => `/api/search/realtime?q=${encodeURIComponent(q)}${extra}`;

describe('GET /api/search/realtime', () => {
  it('answers a page of normalised, ranked products in the envelope', async () => {
    const res = await new ApiClient(stack.url).get(searchPath('wool socks', '&limit=5&sortBy=price_asc'));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'OK', code: 200, message: expect.stringMatching(/completed/) });
    const data = res.json.data as {
      products: { asin: string; price: number; title: string; productUrl: string }[];
      total: number;
      page: number;
      limit: number;
      totalPage: number;
      source: string;
      query: string;
      executionTime: number;
    };
    expect(data).toMatchObject({ page: 1, limit: 5, source: 'realtime', query: 'wool socks' });
    expect(data.products).toHaveLength(5);
    expect(data.totalPage).toBe(Math.ceil(data.total / 5));
    expect(Number.isInteger(data.executionTime)).toBe(true);
    for (const product of data.products) {
      expect(product).toEqual({
        asin: expect.stringMatching(/^[A-Z0-9]{10}$/),
        title: expect.any(String),
        price: expect.any(Number),
        originalPrice: expect.any(Number),
        rating: expect.any(Number),
        reviewCount: expect.any(Number),
        imageUrl: expect.stringMatching(/^https:\/\//),
        productUrl: expect.stringMatching(/^https:\/\//),
        brand: expect.any(String),
        category: expect.any(String),
        availability: expect.any(Boolean),
      });
    }
    const prices = data.products.map((p) => p.price);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    expect(stack.apify.lastRun()?.input).toMatchObject({ scrapeMode: 'AUTO', additionalProperties: true });
    expect(stack.apify.lastRun()?.timeoutSecs).toBe(300);
  });

  it('serves an identical query, and other pages of it, from the cache without another actor run', async () => {
    const client = new ApiClient(stack.url);
    const q = uniqueWords();
    const first = await client.get(searchPath(q));
    expect(first.status).toBe(200);
    const runs = stack.apify.runsStarted();
    const again = await client.get(searchPath(q));
    expect(again.status).toBe(200);
    expect((again.json.data as { products: unknown[] }).products).toEqual(
      (first.json.data as { products: unknown[] }).products,
    );
    expect((await client.get(searchPath(q, '&page=2&limit=3'))).status).toBe(200);
    expect(stack.apify.runsStarted()).toBe(runs);
  });

  it('runs the actor once for concurrent identical queries', async () => {
    const q = uniqueWords();
    const runs = stack.apify.runsStarted();
    stack.apify.slowNextRun(400);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => new ApiClient(stack.url).get(searchPath(q))),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(stack.apify.runsStarted()).toBe(runs + 1);
    expect(
      new Set(answers.map((a) => JSON.stringify((a.json.data as { products: unknown }).products))).size,
    ).toBe(1);
  });

  it.each(['FAILED', 'ABORTED', 'TIMED-OUT'] as const)(
    'answers 502 for a run that ended %s, never an empty result, and does not cache it',
    async (ending) => {
      const client = new ApiClient(stack.url);
      const q = uniqueWords();
      stack.apify.failNextRun(ending);
      const res = await client.get(searchPath(q));
      expect(res.status).toBe(502);
      expect(res.json).toEqual({
        data: null,
        status: 'SCRAPE_FAILED',
        code: 502,
        message: expect.stringContaining(ending),
      });
      const retry = await client.get(searchPath(q));
      expect(retry.status).toBe(200);
    },
  );

  it.each([
    ['', /^q: /],
    ['&limit=51', /limit: /],
    ['&minPrice=30&maxPrice=10', /maxPrice: /],
    ['&sortBy=cheapest', /sortBy: /],
    ['&prime=yes', /prime: /],
    ['&maxprice=3', /maxprice/],
  ])('refuses an invalid query (%s) with 400 naming the field', async (extra, field) => {
    const res = await new ApiClient(stack.url).get(
      `/api/search/realtime?q=${extra === '' ? '' : 'socks'}${extra}`,
    );
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      data: null,
      status: 'BAD_REQUEST',
      code: 400,
      message: expect.stringMatching(field),
    });
  });
});

describe('GET /api/search/realtime/product/:asin', () => {
  it('finds a product a search showed, case-insensitively, without scraping again', async () => {
    const client = new ApiClient(stack.url);
    const search = await client.get(searchPath(uniqueWords()));
    const [product] = (search.json.data as { products: { asin: string }[] }).products;
    const runs = stack.apify.runsStarted();
    const res = await client.get(`/api/search/realtime/product/${product!.asin.toLowerCase()}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: product, status: 'OK', code: 200, message: 'Product found' });
    expect(stack.apify.runsStarted()).toBe(runs);
  });

  it('looks an unknown ASIN up on the marketplace once, then answers 404', async () => {
    const client = new ApiClient(stack.url);
    const runs = stack.apify.runsStarted();
    const res = await client.get('/api/search/realtime/product/B0NOSUCH00');
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ data: null, status: 'PRODUCT_NOT_FOUND', code: 404 });
    expect(stack.apify.runsStarted()).toBe(runs + 1);
    expect(decodeURIComponent(stack.apify.lastRun()!.input.listingUrls[0]!.url)).toContain('k=B0NOSUCH00');
  });

  it.each(['B0SHORT', 'B0TOOLONG000', 'B0-BAD-ID!'])('refuses %s with 400', async (asin) => {
    const res = await new ApiClient(stack.url).get(`/api/search/realtime/product/${asin}`);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      data: null,
      status: 'BAD_REQUEST',
      message: expect.stringMatching(/^asin: /),
    });
  });
});

describe('rate limit', () => {
  it('lets 10 search and product requests a minute through per address, then answers 429', async () => {
    const client = new ApiClient(stack.url);
    const q = uniqueWords();
    const allowed = [];
    for (let i = 0; i < 10; i++) {
      allowed.push(await client.get(i % 2 ? searchPath(q) : '/api/search/realtime/product/bad'));
    }
    expect(allowed.map((r) => r.status)).toEqual([400, 200, 400, 200, 400, 200, 400, 200, 400, 200]);
    expect(allowed[9]!.headers.get('ratelimit-limit')).toBe('10');
    expect(allowed[9]!.headers.get('ratelimit-remaining')).toBe('0');
    const refused = await client.get(searchPath(q));
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ data: null, status: 'TOO_MANY_REQUESTS', code: 429 });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect((await new ApiClient(stack.url).get(searchPath(q))).status).toBe(200);
    expect((await client.get('/api/search/realtime/health')).status).toBe(200);
  });
});

describe('GET /api/search/realtime/health', () => {
  it('reports healthy when the platform accepts the token', async () => {
    const res = await new ApiClient(stack.url).get('/api/search/realtime/health');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      data: { status: 'healthy' },
      status: 'OK',
      code: 200,
      message: expect.any(String),
    });
  });
});

describe('the HTTP surface', () => {
  it('answers unknown routes, malformed JSON and oversized bodies in the envelope', async () => {
    const client = new ApiClient(stack.url);
    const missing = await client.get('/api/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ data: null, status: 'NOT_FOUND', code: 404, message: expect.any(String) });
    const malformed = await client.request('POST', '/api/payment/verify', '{"txHash": ');
    expect(malformed.status).toBe(400);
    expect(malformed.json).toEqual({
      data: null,
      status: 'BAD_REQUEST',
      code: 400,
      message: expect.stringMatching(/JSON/),
    });
    const huge = await client.request('POST', '/api/payment/verify', { txHash: 'x'.repeat(100_000) });
    expect(huge.status).toBe(413);
    expect(huge.json).toMatchObject({ data: null, status: 'PAYLOAD_TOO_LARGE', code: 413 });
  });

  it('echoes the caller’s correlation id', async () => {
    const res = await new ApiClient(stack.url).request('GET', '/api/search/realtime/health', undefined, {
      'x-correlation-id': 'corr-search-1',
    });
    expect(res.headers.get('x-correlation-id')).toBe('corr-search-1');
  });

  it('serves a valid OpenAPI 3.1 document of every route, and a local docs page', async () => {
    const client = new ApiClient(stack.url);
    const doc = await client.get('/api-docs-json');
    expect(doc.status).toBe(200);
    const document = doc.json as unknown as Record<string, unknown>;
    expect(document.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, JSON.stringify(result)).toBe(true);
    const parsed = (await parse(structuredClone(document) as never)) as { paths: Record<string, unknown> };
    expect(Object.keys(parsed.paths).sort()).toEqual([
      '/api/payment/transaction/{txHash}',
      '/api/payment/verify',
      '/api/payment/{paymentId}',
      '/api/search/realtime',
      '/api/search/realtime/health',
      '/api/search/realtime/product/{asin}',
    ]);
    const page = await client.get('/api-docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('/api-docs/swagger-ui-bundle.js');
    expect(page.text).not.toMatch(/https?:\/\//);
    const bundle = await client.get('/api-docs/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
  });

  it('names Product, the search result, the transaction record and the verify request and result once, by $ref', async () => {
    const document = (await new ApiClient(stack.url).get('/api-docs-json')).json as unknown as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
      components: { schemas: Record<string, Record<string, unknown>> };
    };
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const json = (path: string, method: string, part: string) => {
      const op = document.paths[path]![method]! as {
        requestBody?: { content: Record<string, { schema: unknown }> };
        responses: Record<string, { content: Record<string, { schema: unknown }> }>;
      };
      const content = part === 'body' ? op.requestBody!.content : op.responses[part]!.content;
      return content['application/json']!.schema as { properties?: Record<string, unknown> };
    };
    expect(Object.keys(document.components.schemas).sort()).toEqual([
      'Error',
      'PaymentVerifyRequest',
      'PaymentVerifyResult',
      'Product',
      'SearchResult',
      'TransactionRecord',
    ]);
    expect(document.components.schemas.SearchResult).toMatchObject({
      properties: { products: { type: 'array', items: ref('Product') } },
    });
    expect(json('/api/search/realtime', 'get', '200').properties?.data).toEqual(ref('SearchResult'));
    expect(json('/api/search/realtime/product/{asin}', 'get', '200').properties?.data).toEqual(
      ref('Product'),
    );
    expect(json('/api/payment/verify', 'post', 'body')).toEqual(ref('PaymentVerifyRequest'));
    expect(json('/api/payment/verify', 'post', '200').properties?.data).toEqual(ref('PaymentVerifyResult'));
    expect(json('/api/payment/transaction/{txHash}', 'get', '200').properties?.data).toEqual(
      ref('TransactionRecord'),
    );
    expect(json('/api/payment/{paymentId}', 'get', '200').properties?.data).toEqual(ref('TransactionRecord'));
    expect(json('/api/payment/verify', 'post', '422')).toEqual(ref('Error'));
    expect(json('/api/search/realtime', 'get', '429')).toEqual(ref('Error'));
  });
});
