import { describe, expect, it } from 'vitest';
import { MockProductSearch } from '@shop/product-search';
import {
  readComparison,
  readDetails,
  readOrders,
  readRecalled,
  readRemembered,
  readSearch,
} from '../src/offline/tool-results';
import {
  compareProductsOutput,
  getOrdersOutput,
  getProductDetailsOutput,
  orderTimeline,
  recallMemoriesOutput,
  toolFailureResult,
  rememberMemoryOutput,
  searchProductsOutput,
  SHOPPING_TOOLS,
  type ShoppingToolName,
} from '../src';

const products = new MockProductSearch();
const exchange = (toolName: ShoppingToolName, value: unknown, input: unknown = {}) => ({
  toolCallId: 'call-1',
  toolName,
  input,
  outcome: { ok: true as const, value },
});

describe("the tools' answers, as their schemas say and the offline model reads them back", () => {
  it('answers a search with its products as cards, which read back as the products', async () => {
    const result = await products.search({ query: 'hoodies', limit: 3 });
    const output = searchProductsOutput(result);
    expect(SHOPPING_TOOLS.searchProducts.outputSchema.parse(output)).toEqual(output);
    expect(output.products.map(({ id, name }) => ({ id, name }))).toEqual(
      result.products.map(({ productId, productName }) => ({ id: productId, name: productName })),
    );
    expect(readSearch(exchange('searchProducts', output, { query: 'hoodies' }))?.products).toEqual(
      result.products,
    );
  });

  it('reads a search stored before its products were cards', async () => {
    const stored = await products.search({ query: 'hoodies', limit: 3 });
    expect(readSearch(exchange('searchProducts', stored, { query: 'hoodies' }))?.products).toEqual(
      stored.products,
    );
  });

  it('answers details with the product itself as a card, which reads back as the product, and an unknown id with no product', async () => {
    const { products: found } = await products.search({ query: 'hoodies', limit: 1 });
    const product = found[0]!;
    const details = getProductDetailsOutput(product.productId, product);
    expect(SHOPPING_TOOLS.getProductDetails.outputSchema.parse(details)).toEqual(details);
    expect(details).toMatchObject({ id: product.productId, name: product.productName });
    expect(readDetails(exchange('getProductDetails', details))).toEqual(product);

    const missing = getProductDetailsOutput('B0MISSING1', null);
    expect(missing).toEqual({ productId: 'B0MISSING1', found: false });
    expect(SHOPPING_TOOLS.getProductDetails.outputSchema.parse(missing)).toEqual(missing);
    expect(readDetails(exchange('getProductDetails', missing))).toBeNull();
  });

  it('answers a remembered preference as the memory card the frontend shows', () => {
    const output = rememberMemoryOutput('I prefer slim fit');
    expect(output).toEqual({ success: true, text: 'I prefer slim fit', message: expect.any(String) });
    expect(readRemembered(exchange('rememberMemory', output))?.text).toBe('I prefer slim fit');
  });

  it("answers orders in the order list's shape, with the status in words and the steps from it", () => {
    const order = {
      orderId: '00000000-0000-4000-8000-000000000001',
      providerOrderId: 'prov-1',
      type: 'checkout' as const,
      phase: 'shipped',
      status: 'in_progress' as const,
      item: {
        productId: 'B0HOODIE01',
        productName: 'Hoodie',
        price: 4999,
        image: '',
        size: 'M',
        color: 'Black',
        productUrl: '',
        retailer: 'Example',
      },
      payment: { status: 'completed', currency: 'usdc' },
      quote: null,
      createdAt: '2026-01-02T00:00:00.000Z',
    };
    const output = getOrdersOutput({ orders: [order], total: 1, page: 1, limit: 5 });
    expect(SHOPPING_TOOLS.getOrders.outputSchema.parse(output)).toEqual(output);
    expect(output).toEqual({
      success: true,
      total: 1,
      page: 1,
      limit: 5,
      orders: [
        {
          ...order,
          statusText: 'shipped and on its way',
          timeline: [
            { status: 'awaiting_approval', label: expect.any(String), state: 'done' },
            { status: 'payment_confirmed', label: expect.any(String), state: 'done' },
            { status: 'in_progress', label: expect.any(String), state: 'current' },
            { status: 'delivered', label: expect.any(String), state: 'upcoming' },
          ],
        },
      ],
    });
    expect(readOrders(exchange('getOrders', output))?.orders[0]?.statusText).toBe('shipped and on its way');
  });

  it.each([
    ['checkout', 'awaiting_approval', ['current', 'upcoming', 'upcoming', 'upcoming']],
    ['checkout', 'delivered', ['done', 'done', 'done', 'current']],
    ['checkout', 'cancelled', ['done', 'current']],
    ['deposit', 'in_progress', ['current', 'upcoming']],
    ['deposit', 'delivered', ['done', 'current']],
    ['deposit', 'cancelled', ['done', 'current']],
  ] as const)('lays out the steps of a %s order %s', (type, status, states) => {
    const timeline = orderTimeline(type, status);
    expect(timeline.map(({ state }) => state)).toEqual(states);
    expect(timeline.find(({ state }) => state === 'current')?.status).toBe(status);
  });

  it('puts products side by side: what differs (the same colours in another order do not) and what they share', async () => {
    const {
      products: [first, second],
    } = await products.search({ query: 'backpack', maxPriceCents: 10000, limit: 2 });
    const reordered = { ...second!, colors: [...(first!.colors ?? [])].reverse() };
    const output = compareProductsOutput([first!, reordered]);
    expect(SHOPPING_TOOLS.compareProducts.outputSchema.parse(output)).toEqual(output);
    if (!output.success) throw new Error('comparison failed');
    expect(output.differences.map(({ aspect }) => aspect)).not.toContain('colors');
    expect(output.shared.map(({ aspect }) => aspect)).toContain('colors');
    expect(output.differences.find(({ aspect }) => aspect === 'price')?.values).toEqual([
      `$${(first!.price / 100).toFixed(2)}`,
      `$${(second!.price / 100).toFixed(2)}`,
    ]);
    expect(readComparison(exchange('compareProducts', output))?.products).toEqual([first, reordered]);
  });

  it('answers recalled memories most relevant first, and a failure as a result the schema accepts', () => {
    const output = recallMemoriesOutput([
      { content: 'My dad wears size L', score: 0.5 },
      { content: 'Slim fit' },
    ]);
    expect(output).toEqual({
      success: true,
      memories: [
        { text: 'My dad wears size L', relevance: 0.5 },
        { text: 'Slim fit', relevance: null },
      ],
    });
    expect(readRecalled(exchange('recallMemories', output))?.map(({ text }) => text)).toEqual([
      'My dad wears size L',
      'Slim fit',
    ]);
    const failed = toolFailureResult('MEMORY_UNAVAILABLE', 'the memory service is unavailable right now');
    for (const tool of ['getOrders', 'compareProducts', 'recallMemories'] as const)
      expect(SHOPPING_TOOLS[tool].outputSchema.parse(failed)).toEqual(failed);
  });
});
