import { describe, expect, it } from 'vitest';
import { normalizeProduct, parsePrice, readListingFlags } from '../src/normalize-product';

/** The reference's composed Amazon item. */
const amazonItem = () => ({
  name: 'Merino Wool Hiking Socks, 3 Pairs',
  url: 'https://www.amazon.com/dp/B0TESTSOCK',
  image: 'https://m.media-amazon.com/images/I/81test.jpg',
  brand: { slogan: 'Visit the Darn Tough Store' },
  offers: { price: 18.99, priceCurrency: '$' },
  reviewCount: 1523,
  additionalProperties: {
    asin: 'B0TESTSOCK',
    stars: 4.6,
    inStock: true,
    inStockText: 'In Stock',
    listPrice: { value: 24.99, currency: '$' },
    breadCrumbs: 'Clothing, Shoes & Jewelry › Men › Socks',
  },
});

describe('normalizeProduct', () => {
  it('normalises a complete item', () => {
    expect(normalizeProduct(amazonItem())).toEqual({
      asin: 'B0TESTSOCK',
      title: 'Merino Wool Hiking Socks, 3 Pairs',
      price: 18.99,
      originalPrice: 24.99,
      rating: 4.6,
      reviewCount: 1523,
      imageUrl: 'https://m.media-amazon.com/images/I/81test.jpg',
      productUrl: 'https://www.amazon.com/dp/B0TESTSOCK',
      brand: 'Darn Tough',
      category: 'Socks',
      availability: true,
    });
  });

  it.each([
    ['no title', { name: undefined }],
    ['a blank title', { name: '   ' }],
    ['no price', { offers: { priceCurrency: '$' } }],
    ['a zero price', { offers: { price: 0 } }],
    ['a negative price', { offers: { price: -5 } }],
    ['a price without digits', { offers: { price: 'See price in cart' } }],
    ['no product URL', { url: undefined }],
    ['a product URL that is not one', { url: 'htp//www.amazon.com/dp/B0TESTSOCK' }],
    ['a relative product URL', { url: '/dp/B0TESTSOCK' }],
    ['a script URL', { url: 'javascript:alert(1)' }],
    ['no image', { image: undefined }],
    ['an image URL that is not one', { image: 'not a url' }],
  ])('drops an item with %s', (_, change) => {
    expect(normalizeProduct({ ...amazonItem(), ...change })).toBeNull();
  });

  it('drops an item with no ASIN in its fields or URL', () => {
    const item = amazonItem();
    expect(
      normalizeProduct({
        ...item,
        url: 'https://www.amazon.com/s?k=socks',
        additionalProperties: { ...item.additionalProperties, asin: 'not-an-asin' },
      }),
    ).toBeNull();
  });

  it('drops what is not an item', () => {
    for (const raw of [null, undefined, 'item', 42, [amazonItem()]]) expect(normalizeProduct(raw)).toBeNull();
  });

  it.each([
    ['https://www.amazon.com/Darn-Tough-Socks/dp/b0abc12345/ref=sr_1_3?keywords=socks', 'B0ABC12345'],
    ['https://www.amazon.com/gp/product/B0ABC12345?th=1', 'B0ABC12345'],
    ['https://www.amazon.com/gp/aw/d/B0ABC12345', 'B0ABC12345'],
  ])('recovers the ASIN from %s', (url, asin) => {
    const item = amazonItem();
    const { asin: _, ...additionalProperties } = item.additionalProperties;
    expect(normalizeProduct({ ...item, url, additionalProperties })?.asin).toBe(asin);
  });

  it('prefers the ASIN field over the URL and upper-cases it', () => {
    const item = amazonItem();
    expect(
      normalizeProduct({
        ...item,
        additionalProperties: { ...item.additionalProperties, asin: 'b0field001' },
      })?.asin,
    ).toBe('B0FIELD001');
    expect(normalizeProduct({ ...item, additionalProperties: undefined, asin: 'B0TOPLEVEL' })?.asin).toBe(
      'B0TOPLEVEL',
    );
  });

  it.each([
    ['$1,299.99', 1299.99],
    ['1.299,99 €', 1299.99],
    ['USD 12', 12],
    ['£8.50', 8.5],
    ['1 299,99 €', 1299.99],
    ["CHF 1'299.90", 1299.9],
    ['$1,299', 1299],
    ['12,5 €', 12.5],
    ['$10.99 - $15.99', 10.99],
  ])('reads the string price %s', (price, expected) => {
    expect(normalizeProduct({ ...amazonItem(), offers: { price, priceCurrency: 'USD' } })?.price).toBe(
      expected,
    );
  });

  it('takes numeric prices as written, never rescaled by size', () => {
    expect(normalizeProduct({ ...amazonItem(), offers: { price: 1299 } })?.price).toBe(1299);
    expect(normalizeProduct({ ...amazonItem(), offers: { price: 0.5 } })?.price).toBe(0.5);
  });

  it('reads a {value, currency} price and falls back through the price fields', () => {
    const item = amazonItem();
    expect(
      normalizeProduct({ ...item, offers: undefined, price: { value: 21.5, currency: 'USD' } })?.price,
    ).toBe(21.5);
    expect(
      normalizeProduct({
        ...item,
        offers: {},
        additionalProperties: { ...item.additionalProperties, price: '$7.25' },
      })?.price,
    ).toBe(7.25);
    expect(normalizeProduct({ ...item, offers: undefined, 'offers.price': 3.99 })?.price).toBe(3.99);
  });

  it('keeps the price as the original price unless the list price is higher', () => {
    const item = amazonItem();
    const withListPrice = (listPrice: unknown) =>
      normalizeProduct({ ...item, additionalProperties: { ...item.additionalProperties, listPrice } })
        ?.originalPrice;
    expect(withListPrice(undefined)).toBe(18.99);
    expect(withListPrice({ value: 10 })).toBe(18.99);
    expect(withListPrice('$30.00')).toBe(30);
  });

  it('reads the brand from its variants and ignores marketing slogans', () => {
    const item = amazonItem();
    expect(normalizeProduct({ ...item, brand: 'Smartwool' })?.brand).toBe('Smartwool');
    expect(normalizeProduct({ ...item, brand: 'Brand: Bombas' })?.brand).toBe('Bombas');
    expect(normalizeProduct({ ...item, brand: { name: 'Injinji' } })?.brand).toBe('Injinji');
    expect(normalizeProduct({ ...item, brand: { slogan: 'Feel the difference' } })?.brand).toBe('');
    expect(
      normalizeProduct({
        ...item,
        additionalProperties: { ...item.additionalProperties, brand: 'Farm to Feet' },
      })?.brand,
    ).toBe('Farm to Feet');
  });

  it('reads ratings and review counts from numbers and text, 0 when absent', () => {
    const item = amazonItem();
    const { stars: _, ...withoutStars } = item.additionalProperties;
    expect(
      normalizeProduct({ ...item, additionalProperties: withoutStars, rating: '4.2 out of 5 stars' })?.rating,
    ).toBe(4.2);
    expect(normalizeProduct({ ...item, additionalProperties: withoutStars, rating: null })?.rating).toBe(0);
    expect(normalizeProduct({ ...item, reviewCount: '2,341 ratings' })?.reviewCount).toBe(2341);
    expect(normalizeProduct({ ...item, reviewCount: undefined })?.reviewCount).toBe(0);
  });

  it('takes the image from the image list variants', () => {
    const item = amazonItem();
    expect(
      normalizeProduct({
        ...item,
        image: undefined,
        images: ['https://img.example.com/a.jpg', 'https://x/b.jpg'],
      })?.imageUrl,
    ).toBe('https://img.example.com/a.jpg');
    expect(
      normalizeProduct({
        ...item,
        image: undefined,
        additionalProperties: {
          ...item.additionalProperties,
          thumbnailImage: 'https://img.example.com/t.jpg',
        },
      })?.imageUrl,
    ).toBe('https://img.example.com/t.jpg');
  });

  it('reads availability from inStock, the offer or the stock text, available when unknown', () => {
    const item = amazonItem();
    const { inStock: _, inStockText: __, ...unknownStock } = item.additionalProperties;
    const availability = (extra: object, additional: object = unknownStock) =>
      normalizeProduct({ ...item, ...extra, additionalProperties: additional })?.availability;
    expect(availability({}, { ...unknownStock, inStock: false })).toBe(false);
    expect(availability({ offers: { price: 5, availability: 'https://schema.org/OutOfStock' } })).toBe(false);
    expect(availability({ offers: { price: 5, availability: 'https://schema.org/InStock' } })).toBe(true);
    expect(availability({}, { ...unknownStock, inStockText: 'Currently unavailable.' })).toBe(false);
    expect(availability({})).toBe(true);
  });

  it('takes the category from an array of breadcrumbs or a plain category', () => {
    const item = amazonItem();
    expect(
      normalizeProduct({
        ...item,
        additionalProperties: {
          ...item.additionalProperties,
          breadCrumbs: [{ name: 'Sports' }, { name: 'Socks' }],
        },
      })?.category,
    ).toBe('Socks');
    expect(
      normalizeProduct({
        ...item,
        additionalProperties: { ...item.additionalProperties, breadCrumbs: undefined },
        category: 'Hosiery',
      })?.category,
    ).toBe('Hosiery');
  });
});

describe('parsePrice', () => {
  it('rejects what is not a positive amount', () => {
    for (const value of [undefined, null, '', 'free', '-$5.00', Number.NaN, Infinity, {}, true]) {
      expect(parsePrice(value)).toBeUndefined();
    }
  });

  it('rounds to cents', () => {
    expect(parsePrice(18.990000001)).toBe(18.99);
    expect(parsePrice({ amount: '4.999' })).toBe(4999);
  });
});

describe('readListingFlags', () => {
  it('reads Prime and condition where the item states them', () => {
    expect(readListingFlags({ additionalProperties: { isPrime: true, condition: 'New' } })).toEqual({
      prime: true,
      condition: 'new',
    });
    expect(readListingFlags({ offers: { itemCondition: 'https://schema.org/UsedCondition' } })).toEqual({
      condition: 'used',
    });
    expect(readListingFlags({ condition: 'Used - Like New' })).toEqual({ condition: 'used' });
    expect(readListingFlags({ condition: 'Renewed' })).toEqual({ condition: 'refurbished' });
    expect(readListingFlags({ isPrime: false })).toEqual({ prime: false });
    expect(readListingFlags({ name: 'x' })).toEqual({});
  });
});
