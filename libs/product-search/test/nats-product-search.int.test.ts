import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection, Subscription } from 'nats';
import { connectNats } from '@shop/eventstore';
import { testEnvironment } from '@shop/testing';
import { createProductSearch } from '../src/create-product-search';
import { NatsProductSearch } from '../src/nats-product-search';
import { ProductSearchError } from '../src/product-search-error';
import { ProductSummary } from '../src/product-summary';
import { productSearchSubjects } from '../src/search-messages';

const env = testEnvironment('natsclient');
const subjects = productSearchSubjects(env.subjectPrefix);
const encoder = new TextEncoder();
let nc: NatsConnection;
let responder: Subscription | null = null;
let search: NatsProductSearch;

const product: ProductSummary = {
  productId: 'B0TESTSOCK',
  productName: 'Merino Wool Hiking Socks',
  price: 1_899,
  image: 'https://images.example/socks.jpg',
  productUrl: 'https://www.amazon.com/dp/B0TESTSOCK',
  retailer: 'amazon.com',
  brand: 'Darn Tough',
  category: 'Socks',
  rating: 4.6,
  reviewCount: 1_523,
};

/** Answers every request on `subject` with what `answer` makes of the Nest request packet. */
function respond(
  subject: string,
  answer: (request: { pattern: string; data: unknown; id: string }) => unknown,
) {
  responder?.unsubscribe();
  responder = nc.subscribe(subject, {
    callback: (_error, message) => {
      const reply = answer(message.json());
      if (reply !== undefined)
        message.respond(
          typeof reply === 'string' ? encoder.encode(reply) : encoder.encode(JSON.stringify(reply)),
        );
    },
  });
  return nc.flush();
}

async function failureOf(promise: Promise<unknown>): Promise<ProductSearchError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProductSearchError);
  return error as ProductSearchError;
}

beforeAll(async () => {
  nc = await connectNats(env.natsUrl, 'product-search-test');
  search = new NatsProductSearch({ nc, subjectPrefix: env.subjectPrefix, timeoutMs: 300 });
});
afterAll(async () => {
  responder?.unsubscribe();
  await nc.drain();
});

describe('NatsProductSearch', () => {
  it('sends a Nest request packet with the validated query and returns the validated result', async () => {
    const seen: unknown[] = [];
    await respond(subjects.search, (request) => {
      seen.push(request);
      return {
        id: request.id,
        response: { ok: true, result: { products: [product], total: 1, page: 1, limit: 20, totalPage: 1 } },
        isDisposed: true,
      };
    });
    expect(await search.search({ query: 'wool socks', maxPriceCents: 2_500 })).toEqual({
      products: [product],
      total: 1,
      page: 1,
      limit: 20,
      totalPage: 1,
    });
    expect(seen).toEqual([
      {
        pattern: subjects.search,
        id: expect.any(String),
        data: { query: 'wool socks', maxPriceCents: 2_500, page: 1, limit: 20 },
      },
    ]);
  });

  it('asks for one product by its upper-case id and passes null through', async () => {
    await respond(subjects.product, (request) => ({
      id: request.id,
      response: {
        ok: true,
        result: (request.data as { productId: string }).productId === product.productId ? product : null,
      },
    }));
    expect(await search.product('b0testsock')).toEqual(product);
    expect(await search.product('B0UNKNOWN0')).toBeNull();
  });

  it.each([
    ['BAD_REQUEST', 'invalid'],
    ['SCRAPE_TIMEOUT', 'timeout'],
    ['SCRAPE_FAILED', 'upstream'],
    ['SCRAPER_NOT_CONFIGURED', 'upstream'],
  ])('maps an error reply %s to %s, keeping the code and message', async (code, kind) => {
    await respond(subjects.search, (request) => ({
      id: request.id,
      response: { ok: false, error: { code, message: 'said the service' } },
    }));
    expect(await failureOf(search.search({ query: 'socks' }))).toMatchObject({
      kind,
      code,
      message: 'said the service',
    });
  });

  it('treats malformed replies and Nest-level errors as upstream failures', async () => {
    await respond(subjects.search, (request) => ({
      id: request.id,
      response: { ok: true, result: { products: 'none' } },
    }));
    expect(await failureOf(search.search({ query: 'socks' }))).toMatchObject({
      kind: 'upstream',
      message: /malformed/,
    });
    await respond(subjects.search, () => 'not json');
    expect(await failureOf(search.search({ query: 'socks' }))).toMatchObject({ kind: 'upstream' });
    await respond(subjects.search, (request) => ({
      id: request.id,
      status: 'error',
      err: 'There is no matching message handler',
    }));
    expect(await failureOf(search.search({ query: 'socks' }))).toMatchObject({
      kind: 'upstream',
      message: /no matching message handler/,
    });
  });

  it('times out on a silent service and reports a missing one as upstream', async () => {
    await respond(subjects.search, () => undefined);
    expect(await failureOf(search.search({ query: 'socks' }))).toMatchObject({ kind: 'timeout' });
    responder?.unsubscribe();
    responder = null;
    expect(await failureOf(search.search({ query: 'socks' }))).toMatchObject({
      kind: 'upstream',
      message: /No search service/,
    });
  });

  it('refuses invalid questions before sending anything', async () => {
    let asked = 0;
    await respond(subjects.search, () => {
      asked += 1;
      return undefined;
    });
    expect(await failureOf(search.search({ query: 'socks', limit: 0 }))).toMatchObject({
      kind: 'invalid',
      code: 'BAD_REQUEST',
    });
    expect(asked).toBe(0);
  });

  it('is what the factory builds for PRODUCT_SERVICE=scraping', () => {
    expect(createProductSearch({ mode: 'scraping', nc, subjectPrefix: env.subjectPrefix })).toBeInstanceOf(
      NatsProductSearch,
    );
  });
});
