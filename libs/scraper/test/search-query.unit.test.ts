import { describe, expect, it } from 'vitest';
import { searchQuerySchema } from '../src/search-query';

const issuesOf = (input: unknown) => {
  const result = searchQuerySchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
};

describe('searchQuerySchema', () => {
  it('applies the defaults and trims the query', () => {
    expect(searchQuerySchema.parse({ q: '  wool socks ' })).toEqual({ q: 'wool socks', page: 1, limit: 20 });
  });

  it('coerces every query-string value', () => {
    expect(
      searchQuerySchema.parse({
        q: 'boots',
        page: '3',
        limit: '50',
        minPrice: '10.5',
        maxPrice: '99',
        category: 'Shoes',
        brand: 'Acme',
        color: 'black',
        size: '10',
        sortBy: 'price_desc',
        prime: 'true',
        condition: 'new',
      }),
    ).toEqual({
      q: 'boots',
      page: 3,
      limit: 50,
      minPrice: 10.5,
      maxPrice: 99,
      category: 'Shoes',
      brand: 'Acme',
      color: 'black',
      size: '10',
      sortBy: 'price_desc',
      prime: true,
      condition: 'new',
    });
    expect(searchQuerySchema.parse({ q: 'boots', prime: 'false' }).prime).toBe(false);
  });

  it('accepts a price range of one value', () => {
    expect(searchQuerySchema.parse({ q: 'x', minPrice: '20', maxPrice: '20' })).toMatchObject({
      minPrice: 20,
      maxPrice: 20,
    });
  });

  it.each([
    ['missing q', {}, 'q'],
    ['blank q', { q: '   ' }, 'q'],
    ['q over 200 characters', { q: 'a'.repeat(201) }, 'q'],
    ['page 0', { q: 'x', page: '0' }, 'page'],
    ['fractional page', { q: 'x', page: '1.5' }, 'page'],
    ['page that is not a number', { q: 'x', page: 'two' }, 'page'],
    ['empty page', { q: 'x', page: '' }, 'page'],
    ['limit 0', { q: 'x', limit: '0' }, 'limit'],
    ['limit 51', { q: 'x', limit: '51' }, 'limit'],
    ['negative minPrice', { q: 'x', minPrice: '-1' }, 'minPrice'],
    ['minPrice that is not a number', { q: 'x', minPrice: 'cheap' }, 'minPrice'],
    ['empty maxPrice', { q: 'x', maxPrice: '' }, 'maxPrice'],
    ['maxPrice below minPrice', { q: 'x', minPrice: '50', maxPrice: '10' }, 'maxPrice'],
    ['unknown sortBy', { q: 'x', sortBy: 'popularity' }, 'sortBy'],
    ['prime that is not true or false', { q: 'x', prime: 'yes' }, 'prime'],
    ['prime as 1', { q: 'x', prime: '1' }, 'prime'],
    ['condition used', { q: 'x', condition: 'used' }, 'condition'],
    ['brand over 100 characters', { q: 'x', brand: 'b'.repeat(101) }, 'brand'],
    ['blank colour', { q: 'x', color: ' ' }, 'color'],
    ['repeated parameter', { q: ['a', 'b'] }, 'q'],
    ['unknown parameter', { q: 'x', maxprice: '10' }, ''],
  ])('rejects %s', (_, input, path) => {
    expect(issuesOf(input)).toEqual([path]);
  });
});
