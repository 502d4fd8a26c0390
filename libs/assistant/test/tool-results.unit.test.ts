import { describe, expect, it } from 'vitest';
import type { ToolExchange } from '../src/offline/conversation';
import { planStep } from '../src/offline/planner';
import { readDetails, readSearch } from '../src/offline/tool-results';
import { SHOPPING_TOOL_NAMES } from '../src';

const TODAY = {
  productId: 'B000000001',
  productName: 'Test Winter Jacket',
  price: 6199,
  image: 'https://img.example/1.jpg',
  productUrl: 'https://shop.example/1',
  retailer: 'Test Retailer',
  brand: 'Testbrand',
  category: 'apparel',
  rating: 4.5,
  reviewCount: 12,
  sizes: ['M', 'L'],
  colors: ['Black', 'Navy'],
};

/** The catalogue's names beside or instead of today's, as the gateway's product shape may carry them. */
const { productId, productName, price, image, retailer, ...rest } = TODAY;
const CATALOGUE_SHAPE = {
  ...rest,
  id: productId,
  name: productName,
  priceCents: price,
  imageUrl: image,
  marketplace: retailer,
};
const BOTH_SHAPES = { ...TODAY, id: productId, name: productName, priceCents: price, price: price / 100 };

const exchange = (toolName: string, input: unknown, value: unknown): ToolExchange => ({
  toolCallId: `call-${toolName}`,
  toolName,
  input,
  outcome: { ok: true, value },
});

const searchOf = (product: unknown) =>
  exchange(
    'searchProducts',
    { query: 'jacket' },
    { products: [product], total: 1, page: 1, limit: 5, totalPage: 1 },
  );

describe('tool results read whatever product shape the gateway returns', () => {
  it.each([
    ['today', TODAY],
    ['the catalogue names', CATALOGUE_SHAPE],
    ['both, with the price in dollars beside the cents', BOTH_SHAPES],
  ])('reads a search result in %s', (_shape, product) => {
    expect(readSearch(searchOf(product))?.products).toEqual([expect.objectContaining(TODAY)]);
  });

  it.each([
    ['wrapped in { product }', { product: CATALOGUE_SHAPE }],
    ['unwrapped', CATALOGUE_SHAPE],
  ])('reads a details result %s', (_shape, value) => {
    expect(readDetails(exchange('getProductDetails', { productId }, value))).toEqual(
      expect.objectContaining(TODAY),
    );
  });

  it('reads a product that is gone, wrapped or not, as gone', () => {
    expect(readDetails(exchange('getProductDetails', { productId }, { product: null }))).toBeNull();
    expect(readDetails(exchange('getProductDetails', { productId }, null))).toBeNull();
    expect(readDetails(exchange('getProductDetails', { productId }, { productId, found: false }))).toBeNull();
  });

  it('adds a product listed in the catalogue shape with the fields the cart needs', () => {
    const step = planStep(
      {
        system: '',
        lastUserText: 'add the first one in L',
        earlier: [searchOf(CATALOGUE_SHAPE)],
        current: [],
      },
      new Set(SHOPPING_TOOL_NAMES),
    );
    expect(step).toEqual({
      kind: 'tool-calls',
      calls: [
        {
          toolName: 'addToCart',
          input: {
            productId,
            productName,
            price,
            image,
            productUrl: TODAY.productUrl,
            retailer,
            size: 'L',
          },
        },
      ],
    });
  });
});
