import { describe, expect, it } from 'vitest';
import { buildMarketplaceSearchUrl, DEFAULT_MARKETPLACE_SEARCH_URL } from '../src/marketplace-url';

const paramsOf = (url: string) => Object.fromEntries(new URL(url).searchParams);

describe('buildMarketplaceSearchUrl', () => {
  it('searches the marketplace for the query alone', () => {
    const url = buildMarketplaceSearchUrl({ q: 'wool socks' });
    expect(url).toBe('https://www.amazon.com/s?k=wool+socks');
    expect(url.startsWith(DEFAULT_MARKETPLACE_SEARCH_URL)).toBe(true);
  });

  it('appends category, brand, colour and size to k, in that order', () => {
    const url = buildMarketplaceSearchUrl({
      q: 'socks',
      size: 'L',
      color: 'grey',
      brand: 'Darn Tough',
      category: 'hiking',
    });
    expect(paramsOf(url)).toEqual({ k: 'socks hiking Darn Tough grey L' });
  });

  it.each([
    [{ category: 'outdoor' }, 'socks outdoor'],
    [{ brand: 'Smartwool' }, 'socks Smartwool'],
    [{ color: 'navy' }, 'socks navy'],
    [{ size: 'M' }, 'socks M'],
  ])('appends %o to k', (filter, keywords) => {
    expect(paramsOf(buildMarketplaceSearchUrl({ q: 'socks', ...filter }))).toEqual({ k: keywords });
  });

  it('encodes the price range as low-price and high-price', () => {
    expect(paramsOf(buildMarketplaceSearchUrl({ q: 'socks', minPrice: 5, maxPrice: 20.5 }))).toEqual({
      k: 'socks',
      'low-price': '5',
      'high-price': '20.5',
    });
    expect(paramsOf(buildMarketplaceSearchUrl({ q: 'socks', minPrice: 0 }))).toEqual({
      k: 'socks',
      'low-price': '0',
    });
    expect(paramsOf(buildMarketplaceSearchUrl({ q: 'socks', maxPrice: 30 }))).toEqual({
      k: 'socks',
      'high-price': '30',
    });
  });

  it.each([
    ['price_asc', 'price-asc-rank'],
    ['price_desc', 'price-desc-rank'],
    ['rating', 'review-rank'],
    ['newest', 'date-desc-rank'],
  ] as const)('sorts %s as s=%s', (sortBy, s) => {
    expect(paramsOf(buildMarketplaceSearchUrl({ q: 'socks', sortBy }))).toEqual({ k: 'socks', s });
  });

  it('refines to Prime with rh=p_85:2470955011 and leaves prime=false out', () => {
    expect(paramsOf(buildMarketplaceSearchUrl({ q: 'socks', prime: true }))).toEqual({
      k: 'socks',
      rh: 'p_85:2470955011',
    });
    expect(paramsOf(buildMarketplaceSearchUrl({ q: 'socks', prime: false }))).toEqual({ k: 'socks' });
  });

  it('refines to new items with rh=p_n_condition-type:6461716011', () => {
    expect(paramsOf(buildMarketplaceSearchUrl({ q: 'socks', condition: 'new' }))).toEqual({
      k: 'socks',
      rh: 'p_n_condition-type:6461716011',
    });
  });

  it('combines Prime and condition in one comma-separated rh, encoded as the marketplace does', () => {
    const url = buildMarketplaceSearchUrl({ q: 'socks', prime: true, condition: 'new' });
    expect(new URL(url).searchParams.getAll('rh')).toEqual(['p_85:2470955011,p_n_condition-type:6461716011']);
    expect(url).toContain('rh=p_85%3A2470955011%2Cp_n_condition-type%3A6461716011');
  });

  it('adds the page only past the first', () => {
    expect(paramsOf(buildMarketplaceSearchUrl({ q: 'socks', page: 1 }))).toEqual({ k: 'socks' });
    expect(paramsOf(buildMarketplaceSearchUrl({ q: 'socks', page: 3 }))).toEqual({ k: 'socks', page: '3' });
  });

  it('builds every filter together', () => {
    const url = buildMarketplaceSearchUrl({
      q: 'running shoes',
      category: 'footwear',
      brand: 'Brooks',
      color: 'blue',
      size: '10',
      minPrice: 50,
      maxPrice: 150,
      sortBy: 'rating',
      prime: true,
      condition: 'new',
      page: 2,
    });
    expect(url).toBe(
      'https://www.amazon.com/s?k=running+shoes+footwear+Brooks+blue+10&low-price=50&high-price=150' +
        '&s=review-rank&rh=p_85%3A2470955011%2Cp_n_condition-type%3A6461716011&page=2',
    );
  });

  it('uses another marketplace base and keeps its own parameters', () => {
    expect(
      buildMarketplaceSearchUrl({ q: 'socks', sortBy: 'newest' }, 'https://www.amazon.de/s?language=en_GB'),
    ).toBe('https://www.amazon.de/s?language=en_GB&k=socks&s=date-desc-rank');
  });
});
