import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProductSummary } from '@shop/product-search';
import { SHOPPING_TOOL_NAMES } from '../src';
import type { ToolExchange } from '../src/offline/conversation';
import { planStep } from '../src/offline/planner';
import { parseSearchRequest } from '../src/offline/search-request';

const offered = new Set(SHOPPING_TOOL_NAMES);

const productAt = (index: number): ProductSummary => ({
  productId: `B00000000${index}`,
  productName: `Test Jacket ${index}`,
  price: 5000 + index * 100,
  image: `https://img.example/${index}.jpg`,
  productUrl: `https://shop.example/${index}`,
  retailer: 'Test Retailer',
  brand: 'Testbrand',
  category: 'apparel',
  rating: 4,
  reviewCount: 10,
});

let calls = 0;
const searchExchange = (input: Record<string, unknown>, products: ProductSummary[]): ToolExchange => ({
  toolCallId: `call-${++calls}`,
  toolName: 'searchProducts',
  input: { query: 'jacket', limit: 5, ...input },
  outcome: { ok: true, value: { products, total: products.length, page: 1, limit: 5, totalPage: 1 } },
});

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth'];

/** Filters a refinement may add, each of which can make a search come back empty. */
const emptySearch = fc
  .record(
    {
      color: fc.constantFrom('blue', 'pink', 'teal'),
      size: fc.constantFrom('XS', 'XXL'),
      maxPrice: fc.integer({ min: 1, max: 40 }),
      brand: fc.constantFrom('Nike', 'Puma'),
    },
    { requiredKeys: [] },
  )
  .map((filters) => searchExchange(filters, []));

describe('the offline planner, over any conversation', () => {
  it('points "the n-th one" into the latest listing with products, whatever empty searches followed', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(emptySearch, { maxLength: 4 }),
        fc.nat(),
        (count, empties, pick) => {
          const listing = Array.from({ length: count }, (_, index) => productAt(index));
          const index = pick % count;
          const step = planStep(
            {
              system: '',
              lastUserText: `tell me more about the ${ORDINALS[index]} one`,
              earlier: [searchExchange({}, listing), ...empties],
              current: [],
            },
            offered,
          );
          expect(step).toEqual({
            kind: 'tool-calls',
            calls: [{ toolName: 'getProductDetails', input: { productId: listing[index]?.productId } }],
          });
        },
      ),
    );
  });

  it('keeps greetings, lead-ins and politeness out of the query, whatever their combination', () => {
    const greeting = fc.constantFrom('', 'hi!', 'hello,', 'hey there,', 'hi, ok so');
    const leadIn = fc.constantFrom(
      '',
      'I am looking for',
      "I'm looking for",
      'could you find me',
      'can you please show me',
      'I need',
      'I would like',
    );
    const article = fc.constantFrom('', 'a', 'some', 'any');
    const product = fc.constantFrom(
      'winter jacket',
      'wool socks',
      'leather belt',
      'running shoes',
      'coffee mug',
    );
    const politeness = fc.constantFrom('', 'please', 'thanks!', 'if possible', 'thank you');
    fc.assert(
      fc.property(greeting, leadIn, article, product, politeness, (...parts) => {
        const message = parts.filter(Boolean).join(' ');
        expect(parseSearchRequest(message).input.query).toBe(parts[3]);
      }),
    );
  });
});
