import { describe, expect, it } from 'vitest';
import type { NormalizedProduct } from '../src/normalize-product';
import { productScore, rankProducts, type RankCandidate } from '../src/rank-products';
import { searchTerms, termOverlap } from '../src/text-relevance';

let counter = 0;
function product(overrides: Partial<NormalizedProduct>): NormalizedProduct {
  counter += 1;
  const asin = `B0${String(counter).padStart(8, '0')}`;
  return {
    asin,
    title: 'Generic item',
    price: 20,
    originalPrice: 20,
    rating: 4,
    reviewCount: 100,
    imageUrl: `https://img.example.com/${asin}.jpg`,
    productUrl: `https://www.amazon.com/dp/${asin}`,
    brand: '',
    category: '',
    availability: true,
    ...overrides,
  };
}

const candidate = (overrides: Partial<NormalizedProduct>, listing: RankCandidate['listing'] = {}) => ({
  product: product(overrides),
  listing,
});
const titles = (products: NormalizedProduct[]) => products.map(({ title }) => title);

describe('searchTerms', () => {
  it('folds case, accents, punctuation and plurals', () => {
    expect(searchTerms("Men's Crème T-Shirts & BOOTS, dress")).toEqual([
      'men',
      'creme',
      'shirt',
      'boot',
      'dress',
    ]);
  });
});

describe('termOverlap', () => {
  it('is the share of query terms found in any text', () => {
    expect(termOverlap(searchTerms('wool hiking socks'), 'Merino Wool Sock', 'Hiking Co')).toBe(1);
    expect(termOverlap(searchTerms('wool hiking socks'), 'Cotton socks')).toBeCloseTo(1 / 3);
    expect(termOverlap([], 'anything')).toBe(0);
  });
});

describe('productScore', () => {
  it('weighs relevance 0.6, rating 0.25 and saturating review volume 0.15', () => {
    expect(productScore(1, 5, 10_000)).toBeCloseTo(1);
    expect(productScore(0, 0, 0)).toBe(0);
    expect(productScore(0.5, 4, 0)).toBeCloseTo(0.3 + 0.2);
    expect(productScore(0, 0, 1_000_000)).toBeCloseTo(0.15);
  });
});

describe('rankProducts', () => {
  it('puts the closest match first even against better-reviewed items', () => {
    const ranked = rankProducts(
      [
        candidate({ title: 'Cotton Crew Socks', rating: 5, reviewCount: 50_000 }),
        candidate({ title: 'Merino Wool Hiking Socks', rating: 4.1, reviewCount: 12 }),
        candidate({ title: 'Wool Socks', rating: 4.5, reviewCount: 300 }),
      ],
      { q: 'wool hiking socks' },
    );
    expect(titles(ranked)).toEqual(['Merino Wool Hiking Socks', 'Wool Socks', 'Cotton Crew Socks']);
  });

  it('counts brand words as relevant', () => {
    const ranked = rankProducts(
      [
        candidate({ title: 'Hiking Socks', brand: 'Other' }),
        candidate({ title: 'Hiking Socks', brand: 'Darn Tough' }),
      ],
      { q: 'darn tough socks' },
    );
    expect(ranked.map(({ brand }) => brand)).toEqual(['Darn Tough', 'Other']);
  });

  it('with equal relevance, lets thousands of reviews outweigh a slightly higher rating', () => {
    const ranked = rankProducts(
      [
        candidate({ title: 'Socks A', rating: 4, reviewCount: 10 }),
        candidate({ title: 'Socks B', rating: 4.8, reviewCount: 10 }),
        candidate({ title: 'Socks C', rating: 4, reviewCount: 5000 }),
      ],
      { q: 'socks' },
    );
    // C: 0.2 + 0.15·ln(5001)/ln(10001) ≈ 0.339; B: 0.24 + 0.15·ln(11)/ln(10001) ≈ 0.279; A ≈ 0.239.
    expect(titles(ranked)).toEqual(['Socks C', 'Socks B', 'Socks A']);
  });

  it('orders exactly equal scores by ASIN, whatever the input order', () => {
    const a = candidate({ title: 'Same' });
    const b = candidate({ title: 'Same' });
    expect(rankProducts([b, a], { q: 'same' })).toEqual(rankProducts([a, b], { q: 'same' }));
  });

  it.each([
    ['price_asc', ['Cheap', 'Mid relevant', 'Mid', 'Dear']],
    ['price_desc', ['Dear', 'Mid relevant', 'Mid', 'Cheap']],
    ['rating', ['Mid relevant', 'Mid', 'Dear', 'Cheap']],
  ] as const)('sorts by %s with the score breaking ties', (sortBy, expected) => {
    const ranked = rankProducts(
      [
        candidate({ title: 'Dear', price: 90, rating: 4.5 }),
        candidate({ title: 'Mid', price: 40, rating: 4.9 }),
        candidate({ title: 'Cheap', price: 10, rating: 3 }),
        candidate({ title: 'Mid relevant socks', price: 40, rating: 4.9 }),
      ],
      { q: 'socks', sortBy },
    );
    expect(titles(ranked)).toEqual(
      expected.map((title) => (title === 'Mid relevant' ? 'Mid relevant socks' : title)),
    );
  });

  it('keeps the marketplace order for newest', () => {
    const ranked = rankProducts(
      [
        candidate({ title: 'Newest' }),
        candidate({ title: 'Older socks', rating: 5 }),
        candidate({ title: 'Oldest' }),
      ],
      { q: 'socks', sortBy: 'newest' },
    );
    expect(titles(ranked)).toEqual(['Newest', 'Older socks', 'Oldest']);
  });

  it('drops items outside the price range, bounds included', () => {
    const ranked = rankProducts(
      [
        candidate({ title: 'Under', price: 9.99 }),
        candidate({ title: 'Low edge', price: 10 }),
        candidate({ title: 'High edge', price: 20 }),
        candidate({ title: 'Over', price: 20.01 }),
      ],
      { q: 'x', minPrice: 10, maxPrice: 20, sortBy: 'price_asc' },
    );
    expect(titles(ranked)).toEqual(['Low edge', 'High edge']);
  });

  it('drops items that say they are not Prime or not new when asked, and keeps those that do not say', () => {
    const items = [
      candidate({ title: 'Prime new' }, { prime: true, condition: 'new' }),
      candidate({ title: 'Not prime' }, { prime: false, condition: 'new' }),
      candidate({ title: 'Used' }, { prime: true, condition: 'used' }),
      candidate({ title: 'Unknown' }, {}),
    ];
    expect(titles(rankProducts(items, { q: 'x', prime: true, condition: 'new', sortBy: 'newest' }))).toEqual([
      'Prime new',
      'Unknown',
    ]);
    expect(titles(rankProducts(items, { q: 'x', prime: false, sortBy: 'newest' }))).toEqual([
      'Prime new',
      'Not prime',
      'Used',
      'Unknown',
    ]);
  });

  it('lists each ASIN once, from its first listing', () => {
    const first = candidate({ title: 'Sponsored socks' });
    const repeat = { product: { ...first.product, title: 'Organic socks' }, listing: {} };
    expect(titles(rankProducts([first, candidate({ title: 'Other' }), repeat], { q: 'socks' }))).toEqual([
      'Sponsored socks',
      'Other',
    ]);
  });
});
