import { describe, expect, it } from 'vitest';
import type { ListingScrapeOptions, SearchRunner } from '../src/apify-search-runner';
import { searchQuerySchema } from '../src/search-query';
import { DEFAULT_MAX_RESULTS, searchProducts } from '../src/search-products';

function item(n: number, overrides: Record<string, unknown> = {}) {
  const asin = `B0SOCK${String(n).padStart(4, '0')}`;
  return {
    name: `Wool Socks ${n}`,
    url: `https://www.amazon.com/dp/${asin}`,
    image: `https://img.example.com/${asin}.jpg`,
    offers: { price: 10 + n },
    reviewCount: 10,
    additionalProperties: { asin, stars: 4 },
    ...overrides,
  };
}

/** Answers every listing with the given items and records what it was asked. */
function fakeRunner(items: unknown[]) {
  const calls: { listingUrl: string; options: ListingScrapeOptions }[] = [];
  const runner: SearchRunner = {
    scrapeListing: async (listingUrl, options) => {
      calls.push({ listingUrl, options });
      return items;
    },
  };
  return { runner, calls };
}

describe('searchProducts', () => {
  it('scrapes the marketplace URL of the filters, without the page, and pages the ranked result', async () => {
    const items = Array.from({ length: 25 }, (_, i) => item(i + 1));
    const { runner, calls } = fakeRunner(items);
    const query = searchQuerySchema.parse({
      q: 'wool socks',
      brand: 'Acme',
      page: '2',
      limit: '10',
      sortBy: 'price_asc',
    });
    const result = await searchProducts(query, { runner });
    expect(calls).toEqual([
      {
        listingUrl: 'https://www.amazon.com/s?k=wool+socks+Acme&s=price-asc-rank',
        options: { maxResults: DEFAULT_MAX_RESULTS },
      },
    ]);
    expect(result).toMatchObject({ total: 25, page: 2, limit: 10, totalPage: 3 });
    expect(result.products.map(({ price }) => price)).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
  });

  it('drops malformed items before counting', async () => {
    const { runner } = fakeRunner([
      item(1),
      item(2, { name: '' }),
      item(3, { offers: {} }),
      item(4, { url: 'bad' }),
    ]);
    const result = await searchProducts(searchQuerySchema.parse({ q: 'socks' }), { runner });
    expect(result).toEqual({
      products: [expect.objectContaining({ asin: 'B0SOCK0001' })],
      total: 1,
      page: 1,
      limit: 20,
      totalPage: 1,
    });
  });

  it('returns an empty page past the end and no pages for no results', async () => {
    const { runner } = fakeRunner([item(1)]);
    expect(await searchProducts(searchQuerySchema.parse({ q: 'socks', page: '5' }), { runner })).toEqual({
      products: [],
      total: 1,
      page: 5,
      limit: 20,
      totalPage: 1,
    });
    const empty = fakeRunner([]);
    expect(
      await searchProducts(searchQuerySchema.parse({ q: 'socks' }), { runner: empty.runner }),
    ).toMatchObject({
      total: 0,
      totalPage: 0,
    });
  });

  it('passes the marketplace base and the scrape size on', async () => {
    const { runner, calls } = fakeRunner([]);
    await searchProducts(searchQuerySchema.parse({ q: 'socks' }), {
      runner,
      marketplaceBaseUrl: 'https://www.amazon.co.uk/s',
      maxResults: 40,
    });
    expect(calls).toEqual([
      { listingUrl: 'https://www.amazon.co.uk/s?k=socks', options: { maxResults: 40 } },
    ]);
  });
});
