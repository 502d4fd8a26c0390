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
  addToCartOutput,
  checkoutOutput,
  compareProductsOutput,
  getOrdersOutput,
  getProductDetailsOutput,
  readToolFailure,
  recallMemoriesOutput,
  rememberMemoryOutput,
  removeFromCartOutput,
  searchProductsOutput,
  SHOPPING_TOOL_NAMES,
  SHOPPING_TOOLS,
  toolFailed,
  viewCartOutput,
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

  it('answers details with the product itself as a card, which reads back as the product, and an unknown id with a PRODUCT_NOT_FOUND failure', async () => {
    const { products: found } = await products.search({ query: 'hoodies', limit: 1 });
    const product = found[0]!;
    const details = getProductDetailsOutput(product.productId, product);
    expect(SHOPPING_TOOLS.getProductDetails.outputSchema.parse(details)).toEqual(details);
    expect(details).toMatchObject({ id: product.productId, name: product.productName });
    expect(readDetails(exchange('getProductDetails', details))).toEqual(product);

    const missing = getProductDetailsOutput('B0MISSING1', null);
    expect(missing).toEqual({
      success: false,
      code: 'PRODUCT_NOT_FOUND',
      message: expect.any(String),
      productId: 'B0MISSING1',
    });
    expect(SHOPPING_TOOLS.getProductDetails.outputSchema.parse(missing)).toEqual(missing);
    expect(readToolFailure(missing)?.code).toBe('PRODUCT_NOT_FOUND');
  });

  it('answers a remembered preference as the memory card the frontend shows', () => {
    const output = rememberMemoryOutput('I prefer slim fit');
    expect(output).toEqual({ success: true, text: 'I prefer slim fit', message: expect.any(String) });
    expect(readRemembered(exchange('rememberMemory', output))?.text).toBe('I prefer slim fit');
  });

  it("answers the cart tools with the original backend's fields: success, message, priceFormatted, total, totalFormatted, itemCount", () => {
    const item = {
      id: '00000000-0000-4000-8000-000000000001',
      productId: 'B000000001',
      productName: 'Trail Hoodie',
      price: 4999,
      image: 'https://img.example/1.jpg',
      size: 'M',
      color: 'Black',
      productUrl: 'https://shop.example/1',
      retailer: 'Shop',
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    const cart = viewCartOutput([
      item,
      { ...item, id: '00000000-0000-4000-8000-000000000002', price: 150001 },
    ]);
    expect(cart).toMatchObject({
      success: true,
      total: 155000,
      totalFormatted: '$1,550.00',
      itemCount: 2,
      items: [{ ...item, priceFormatted: '$49.99' }, { priceFormatted: '$1,500.01' }],
    });
    const added = addToCartOutput(item);
    expect(added).toEqual({
      success: true,
      item: { ...item, priceFormatted: '$49.99' },
      message: expect.stringContaining('Trail Hoodie'),
    });
    const removed = removeFromCartOutput(item.id);
    expect(removed).toEqual({ success: true, itemId: item.id, removed: true, message: expect.any(String) });
    const order = checkoutOutput({
      orderId: 'o-1',
      providerOrderId: 'p-1',
      phase: 'awaiting-approval',
      walletAddress: '0xaa',
    });
    expect(order).toMatchObject({ success: true, orderId: 'o-1', message: expect.any(String) });
    for (const [name, output] of [
      ['viewCart', cart],
      ['addToCart', added],
      ['removeFromCart', removed],
      ['checkout', order],
    ] as const) {
      expect(SHOPPING_TOOLS[name].outputSchema.parse(output)).toEqual(output);
    }
  });

  it('answers a failure in one shape every tool schema accepts, which reads back as the failure', () => {
    const failure = toolFailed('CartFullError', 'The cart already holds 10 items');
    expect(failure).toEqual({
      success: false,
      code: 'CartFullError',
      message: 'The cart already holds 10 items',
    });
    for (const name of SHOPPING_TOOL_NAMES) {
      expect(SHOPPING_TOOLS[name].outputSchema.parse(failure)).toEqual(failure);
    }
    expect(readToolFailure(failure)).toEqual(failure);
    expect(readToolFailure({ ...failure, text: 'I prefer slim fit' })).toEqual(failure);
    expect(readToolFailure(rememberMemoryOutput('I prefer slim fit'))).toBeUndefined();
    expect(readToolFailure({ success: false, message: 'no code' })).toBeUndefined();
  });

  it("answers orders in the order list's shape, timeline and tx_hash included, with the status in words", () => {
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
      timeline: [
        { status: 'awaiting_approval' as const, at: '2026-01-02T00:00:00.000Z' },
        { status: 'payment_confirmed' as const, at: '2026-01-02T00:05:00.000Z' },
        { status: 'in_progress' as const, at: '2026-01-03T09:00:00.000Z' },
      ],
      tx_hash: null,
      createdAt: '2026-01-02T00:00:00.000Z',
      agent: null,
    };
    const output = getOrdersOutput({ orders: [order], total: 1, page: 1, limit: 5 });
    expect(SHOPPING_TOOLS.getOrders.outputSchema.parse(output)).toEqual(output);
    expect(output).toEqual({
      success: true,
      total: 1,
      page: 1,
      limit: 5,
      orders: [{ ...order, statusText: 'shipped and on its way' }],
    });
    expect(readOrders(exchange('getOrders', output))?.orders[0]?.statusText).toBe('shipped and on its way');
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
    const failed = toolFailed('MEMORY_UNAVAILABLE', 'the memory service is unavailable right now');
    for (const tool of ['getOrders', 'compareProducts', 'recallMemories'] as const)
      expect(SHOPPING_TOOLS[tool].outputSchema.parse(failed)).toEqual(failed);
  });
});
