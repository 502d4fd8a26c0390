import { normalizeProduct, readListingFlags } from '@shop/scraper';
import { describe, expect, it } from 'vitest';
import { generateListing, LISTING_QUIRKS, MALFORMING_QUIRKS } from '../src/listing-items';

const KEYWORDS = ['wool socks', 'running shoes', 'rain jacket', 'leather belt', 'x', 'über boots'];

describe('generateListing', () => {
  it('is the same for the same keyword and page, and differs between keywords and pages', () => {
    const url = 'https://www.amazon.com/s?k=wool+socks';
    expect(generateListing(url)).toEqual(generateListing(url));
    expect(generateListing(url).items).not.toEqual(
      generateListing('https://www.amazon.com/s?k=rain+jacket').items,
    );
    expect(generateListing(url).items).not.toEqual(generateListing(`${url}&page=2`).items);
  });

  it.each(KEYWORDS)('gives 10 to 40 items for %j, each quirk once', (keyword) => {
    const { items, quirks } = generateListing(`https://www.amazon.com/s?k=${encodeURIComponent(keyword)}`);
    expect(items.length).toBeGreaterThanOrEqual(10);
    expect(items.length).toBeLessThanOrEqual(40);
    expect(quirks.map(({ quirk }) => quirk)).toEqual([...LISTING_QUIRKS]);
    expect(new Set(quirks.map(({ index }) => index)).size).toBe(LISTING_QUIRKS.length);
  });

  it('makes exactly the malforming quirks unusable', () => {
    const { items, quirks } = generateListing('https://www.amazon.com/s?k=wool+socks');
    const malformed = new Set(
      quirks.filter(({ quirk }) => MALFORMING_QUIRKS.has(quirk)).map(({ index }) => index),
    );
    items.forEach((item, index) => {
      expect(normalizeProduct(item) === null, `item ${index}`).toBe(malformed.has(index));
    });
  });

  it('writes the quirky but usable items the way the quirk says', () => {
    const { items, quirks } = generateListing('https://www.amazon.com/s?k=wool+socks');
    const at = (quirk: string) => items[quirks.find((entry) => entry.quirk === quirk)?.index ?? -1];
    const stringPrice = at('string-price') as { offers: { price: unknown } };
    expect(stringPrice.offers.price).toMatch(/^\$[\d,]+\.\d\d$/);
    const asinInUrl = at('asin-only-in-url') as {
      url: string;
      additionalProperties: Record<string, unknown>;
    };
    expect(asinInUrl.additionalProperties).not.toHaveProperty('asin');
    expect(normalizeProduct(asinInUrl)?.asin).toBe(/\/dp\/([A-Z0-9]{10})\//.exec(asinInUrl.url)?.[1]);
  });

  it('honours the price range, Prime and new refinements of the URL, and links on the listing host', () => {
    const url =
      'https://www.amazon.co.uk/s?k=rain+jacket&low-price=40&high-price=60&rh=p_85%3A2470955011%2Cp_n_condition-type%3A6461716011';
    const products = generateListing(url).items.flatMap((item) => {
      const product = normalizeProduct(item);
      return product ? [{ product, flags: readListingFlags(item) }] : [];
    });
    expect(products.length).toBeGreaterThan(0);
    for (const { product, flags } of products) {
      expect(product.price).toBeGreaterThanOrEqual(40);
      expect(product.price).toBeLessThanOrEqual(60);
      expect(flags).toEqual({ prime: true, condition: 'new' });
      expect(new URL(product.productUrl).host).toBe('www.amazon.co.uk');
      expect(product.title).toMatch(/Rain Jacket/);
    }
  });
});
