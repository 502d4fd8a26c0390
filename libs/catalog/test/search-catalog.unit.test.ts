import { describe, expect, it } from 'vitest';
import { CATALOG_PRODUCTS } from '../src/catalog-products';
import { getCatalogProduct, searchCatalog } from '../src/search-catalog';

const all = (search: Parameters<typeof searchCatalog>[0]) => searchCatalog({ ...search, limit: 50 });

describe('searchCatalog', () => {
  it('finds the products a query names, full matches before partial ones', () => {
    const { products, total } = searchCatalog({ query: 'running shoes', limit: 50 });
    const fullMatch = (type: string) => /Running Shoes/.test(type);
    const firstPartial = products.findIndex(({ productType }) => !fullMatch(productType));
    expect(total).toBe(products.length);
    expect(firstPartial).toBeGreaterThan(0);
    expect(products.slice(firstPartial).some(({ productType }) => fullMatch(productType))).toBe(false);
    expect(CATALOG_PRODUCTS.filter(({ productType }) => fullMatch(productType))).toHaveLength(firstPartial);
  });

  it('leaves out products that match only a minor part of the query', () => {
    const { products } = all({ query: 'red running shoes' });
    expect(products.length).toBeGreaterThan(0);
    for (const product of products) expect(product.productType).toMatch(/Shoes/);
    expect(products.some((product) => product.colors.includes('Red'))).toBe(true);
  });

  it('tolerates query words no product has', () => {
    expect(
      all({ query: 'comfortable wool beanie' }).products.map(({ productType }) => productType),
    ).toContain('Beanie');
  });

  it('matches brand words and plurals', () => {
    const { products } = all({ query: 'summit ridge boots' });
    expect(products[0]?.brand).toBe('Summit Ridge');
    expect(products[0]?.productType).toMatch(/Boots/);
  });

  it('has what a plain shopping chat asks for: winter jackets under $80 in several colours, coffee things', () => {
    const jackets = all({ query: 'winter jacket', maxPriceCents: 8000, size: 'L' }).products;
    expect(jackets.length).toBeGreaterThan(1);
    expect(new Set(jackets.flatMap(({ colors }) => colors)).size).toBeGreaterThan(2);
    const coffee = all({ query: 'coffee' }).products;
    expect(new Set(coffee.map(({ productType }) => productType))).toEqual(
      new Set(['Coffee Mug', 'Coffee Grinder']),
    );
  });

  it('returns nothing for a query nothing matches', () => {
    expect(searchCatalog({ query: 'microwave oven' })).toEqual({
      products: [],
      total: 0,
      page: 1,
      limit: 20,
      totalPage: 0,
    });
  });

  it('browses everything for an empty query', () => {
    expect(searchCatalog({ query: '' }).total).toBe(CATALOG_PRODUCTS.length);
  });

  it.each([
    [{ category: 'Footwear' }, (p: (typeof CATALOG_PRODUCTS)[number]) => p.category === 'footwear'],
    [{ brand: 'urban loom' }, (p: (typeof CATALOG_PRODUCTS)[number]) => p.brand === 'Urban Loom'],
    [{ color: 'navy' }, (p: (typeof CATALOG_PRODUCTS)[number]) => p.colors.includes('Navy')],
    [{ size: '10.5' }, (p: (typeof CATALOG_PRODUCTS)[number]) => p.sizes.includes('10.5')],
    [
      { minPriceCents: 5000, maxPriceCents: 9999 },
      (p: (typeof CATALOG_PRODUCTS)[number]) => p.priceCents >= 5000 && p.priceCents <= 9999,
    ],
  ])('filters by %o', (filter, holds) => {
    const result = searchCatalog({ query: '', ...filter, limit: 50 });
    const expected = CATALOG_PRODUCTS.filter(holds);
    expect(expected.length).toBeGreaterThan(0);
    expect(result.total).toBe(expected.length);
    for (const product of result.products) expect(holds(product)).toBe(true);
  });

  it('combines the query with filters', () => {
    const { products, total } = all({ query: 'jacket', color: 'black', size: 'XL', maxPriceCents: 20_000 });
    expect(total).toBeGreaterThan(0);
    for (const product of products) {
      expect(product.productType).toMatch(/Jacket/);
      expect(product.colors).toContain('Black');
      expect(product.sizes).toContain('XL');
      expect(product.priceCents).toBeLessThanOrEqual(20_000);
    }
  });

  it.each([
    ['price_asc', (a: number, b: number) => a <= b, 'priceCents'],
    ['price_desc', (a: number, b: number) => a >= b, 'priceCents'],
    ['rating', (a: number, b: number) => a >= b, 'rating'],
  ] as const)('sorts by %s', (sortBy, inOrder, field) => {
    const { products } = all({ query: 'socks', sortBy });
    expect(products.length).toBeGreaterThan(1);
    products
      .slice(1)
      .forEach((product, i) => expect(inOrder(products[i]![field], product[field])).toBe(true));
  });

  it('sorts newest first by listing date', () => {
    const { products } = all({ query: 'sneakers', sortBy: 'newest' });
    const dates = products.map(({ listedOn }) => listedOn);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it('pages through one stable order', () => {
    const whole = searchCatalog({ query: 'shirt', limit: 50 });
    const first = searchCatalog({ query: 'shirt', page: 1, limit: 7 });
    const second = searchCatalog({ query: 'shirt', page: 2, limit: 7 });
    expect([...first.products, ...second.products]).toEqual(whole.products.slice(0, 14));
    expect(second).toMatchObject({
      page: 2,
      limit: 7,
      total: whole.total,
      totalPage: Math.ceil(whole.total / 7),
    });
  });

  it.each([
    { query: 'x', page: 0 },
    { query: 'x', limit: 51 },
    { query: 'x', minPriceCents: 10.5 },
    { query: 'x', minPriceCents: 500, maxPriceCents: 100 },
    { query: 'x', sortBy: 'popularity' },
    { query: 'x', colour: 'red' },
  ])('rejects %o', (search) => {
    expect(() => searchCatalog(search as Parameters<typeof searchCatalog>[0])).toThrow();
  });
});

describe('getCatalogProduct', () => {
  it('finds a product by id, whatever its case', () => {
    const product = CATALOG_PRODUCTS[42]!;
    expect(getCatalogProduct(product.productId)).toBe(product);
    expect(getCatalogProduct(product.productId.toLowerCase())).toBe(product);
  });

  it('finds nothing for an unknown id', () => {
    expect(getCatalogProduct('B000000000')).toBeUndefined();
  });
});
