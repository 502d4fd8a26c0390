import { CATALOG_PRODUCTS, searchCatalog } from '@shop/catalog';
import { catalogProductSummary, type ProductSummary } from '@shop/product-search';
import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { SHOPPING_TOOLS, toolFailed, type CartItemView } from '../src';
import { converse, createFakeShop, runTurn, type Turn } from './fake-shop';

const usd = (cents: number) => `$${(cents / 100).toFixed(2)}`;

function pricesIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const entry of value) pricesIn(entry, found);
    const prices = value.flatMap((entry) =>
      typeof entry?.price === 'number' ? [entry.price as number] : [],
    );
    // A cart's total is the one figure the model may add up itself.
    if (prices.length > 1) found.add(usd(prices.reduce((sum, price) => sum + price, 0)));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, entry] of Object.entries(value)) {
      if (key === 'price' && typeof entry === 'number') found.add(usd(entry));
      else pricesIn(entry, found);
    }
  }
  return found;
}

/** The answer names only products and prices that the conversation's tool results contain. */
function expectGrounded(turn: Turn, earlier: Turn[] = []) {
  const outputs = [...earlier, turn].flatMap(({ outputs }) => outputs);
  const results = JSON.stringify(outputs);
  const allowed = pricesIn(outputs);
  for (const [price] of turn.text.matchAll(/\$\d[\d,]*\.\d{2}/g)) expect(allowed).toContain(price);
  for (const { name } of CATALOG_PRODUCTS) {
    if (turn.text.includes(name)) expect(results).toContain(JSON.stringify(name));
  }
}

function cartItem(query: string, id: string, size = 'M'): CartItemView {
  const [product] = searchCatalog({ query, limit: 1 }).products;
  if (!product) throw new Error(`no catalogue product for ${query}`);
  const { productId, productName, price, image, productUrl, retailer } = catalogProductSummary(product);
  return {
    id,
    productId,
    productName,
    price,
    image,
    productUrl,
    retailer,
    size,
    color: product.colors[0] ?? 'Default',
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

const HOODIE_ID = '11111111-1111-4111-8111-111111111111';
const BEANIE_ID = '22222222-2222-4222-8222-222222222222';
const JACKET_ID = '33333333-3333-4333-8333-333333333333';
const cartWithHoodieAndBeanie = () => [
  cartItem('hoodie', HOODIE_ID),
  cartItem('beanie', BEANIE_ID, 'One Size'),
];
const WINTER_JACKET_ID = '44444444-4444-4444-8444-444444444444';
const cartWithTwoJackets = () => [
  cartItem('rain jacket', JACKET_ID, 'L'),
  cartItem('winter jacket', WINTER_JACKET_ID, 'L'),
];
const cartWithJacketAndBeanie = () => [
  cartItem('rain jacket', JACKET_ID, 'L'),
  cartItem('beanie', BEANIE_ID),
];

/** The products the shopper saw last: the output of the latest searchProducts call before the phrase. */
function shownBy(turns: Turn[]): ProductSummary[] {
  const outputs = turns.flatMap((turn) => turn.outputs) as { products?: ProductSummary[] }[];
  return outputs.findLast((output) => (output?.products?.length ?? 0) > 0)?.products ?? [];
}

const product = (products: ProductSummary[], index: number) => {
  const found = products.at(index);
  if (!found) throw new Error(`no product at ${index}`);
  return found;
};

interface Case {
  phrase: string;
  /** Messages sent before the phrase, in the same conversation. */
  before?: string[];
  cart?: () => CartItemView[];
  /** Tool calls the phrase must cause, in order; inputs are matched partially. */
  calls: (shown: ProductSummary[]) => [string, Record<string, unknown>][];
  reply?: RegExp;
}

const cases: Case[] = [
  {
    phrase: 'show me red running shoes under $120',
    calls: () => [['searchProducts', { query: 'running shoes', color: 'red', maxPrice: 120 }]],
    reply: /I found 1 product for "running shoes" in red within your price range/,
  },
  {
    phrase: 'cheapest black hoodie in M',
    calls: () => [['searchProducts', { query: 'hoodie', color: 'black', size: 'M', sortBy: 'price_asc' }]],
  },
  {
    phrase: 'Nike sneakers between 50 and 120 dollars',
    calls: () => [['searchProducts', { query: 'sneakers', brand: 'Nike', minPrice: 50, maxPrice: 120 }]],
    reply: /found no products matching "sneakers" from Nike/,
  },
  {
    phrase: 'best rated jackets',
    calls: () => [['searchProducts', { query: 'jackets', sortBy: 'rating' }]],
    reply: /Here are the first 5/,
  },
  {
    phrase: "I'm looking for a waterproof jacket under $150",
    calls: () => [['searchProducts', { query: 'waterproof jacket', maxPrice: 150 }]],
  },
  { phrase: 'Do you have wool socks?', calls: () => [['searchProducts', { query: 'wool socks' }]] },
  {
    phrase: 'any hiking boots over $200?',
    calls: () => [['searchProducts', { query: 'hiking boots', minPrice: 200 }]],
  },
  {
    phrase: '$50-$100 backpacks',
    calls: () => [['searchProducts', { query: 'backpacks', minPrice: 50, maxPrice: 100 }]],
  },
  {
    phrase: 'show me accessories under $30',
    calls: () => [['searchProducts', { query: '', category: 'accessories', maxPrice: 30 }]],
  },
  { phrase: 'newest sneakers', calls: () => [['searchProducts', { query: 'sneakers', sortBy: 'newest' }]] },
  {
    phrase: 'Find me a black leather belt in size M',
    calls: () => [['searchProducts', { query: 'leather belt', color: 'black', size: 'M' }]],
  },
  {
    phrase: 'gray beanies for 25 bucks or less',
    calls: () => [['searchProducts', { query: 'beanies', color: 'grey', maxPrice: 25 }]],
  },
  {
    phrase: 'add the second one in M',
    before: ['show me hoodies'],
    calls: (shown) => [['addToCart', { ...pick(product(shown, 1)), size: 'M' }]],
    reply: /^Added .+ \(size M\) to your cart for \$\d+\.\d{2}\.$/,
  },
  {
    phrase: 'add the first one',
    before: ['show me hoodies'],
    calls: (shown) => [['addToCart', pick(product(shown, 0))]],
  },
  {
    phrase: 'tell me more about the third one',
    before: ['show me hoodies'],
    calls: (shown) => [['getProductDetails', { productId: product(shown, 2).productId }]],
    reply: /Sizes: XS, S, M, L, XL, XXL\./,
  },
  {
    phrase: 'add the cheapest one',
    before: ['show me hoodies'],
    calls: (shown) => [
      ['addToCart', pick([...shown].sort((a, b) => a.price - b.price)[0] as ProductSummary)],
    ],
  },
  {
    phrase: "I'll take the last one in XL",
    before: ['show me hoodies'],
    calls: (shown) => [['addToCart', { ...pick(product(shown, -1)), size: 'XL' }]],
  },
  {
    phrase: 'add it in size L and color blue',
    before: ['show me polo shirts', 'tell me more about the third one'],
    calls: (shown) => [['addToCart', { ...pick(product(shown, 2)), size: 'L', color: 'Cobalt Blue' }]],
    reply: /\(size L, Cobalt Blue\)/,
  },
  {
    phrase: 'add the Bramblewood hoodie in L',
    before: ['show me hoodies'],
    calls: (shown) => [
      [
        'addToCart',
        { ...pick(shown.find(({ brand }) => brand === 'Bramblewood') as ProductSummary), size: 'L' },
      ],
    ],
  },
  {
    phrase: 'what about under $50?',
    before: ['show me hoodies'],
    calls: () => [['searchProducts', { query: 'hoodies', maxPrice: 50 }]],
  },
  {
    phrase: 'show me more',
    before: ['show me hoodies'],
    calls: () => [['searchProducts', { query: 'hoodies', page: 2 }]],
    reply: /Here are 5 more results for "hoodies"/,
  },
  {
    phrase: "what's in my cart",
    cart: cartWithHoodieAndBeanie,
    calls: () => [['viewCart', {}]],
    reply: /Your cart has 2 items:[\s\S]*Total: \$/,
  },
  {
    phrase: 'empty my cart',
    cart: cartWithHoodieAndBeanie,
    calls: () => [
      ['viewCart', {}],
      ['removeFromCart', { itemId: HOODIE_ID }],
      ['removeFromCart', { itemId: BEANIE_ID }],
    ],
    reply: /removed 2 items\. Your cart is now empty/,
  },
  {
    phrase: 'clear my cart please',
    before: ["what's in my cart"],
    cart: cartWithHoodieAndBeanie,
    calls: () => [
      ['removeFromCart', { itemId: HOODIE_ID }],
      ['removeFromCart', { itemId: BEANIE_ID }],
    ],
  },
  {
    phrase: 'remove the hoodie from my cart',
    cart: cartWithHoodieAndBeanie,
    calls: () => [
      ['viewCart', {}],
      ['removeFromCart', { itemId: HOODIE_ID }],
    ],
    reply: /^Removed .*Hoodie from your cart\.$/,
  },
  {
    phrase: 'check out the jacket',
    cart: cartWithJacketAndBeanie,
    calls: () => [
      ['viewCart', {}],
      ['checkout', { cartItemId: JACKET_ID }],
    ],
    reply: /awaiting-approval.*one-time code/,
  },
  {
    phrase: 'buy it',
    before: ['show me hoodies', 'add the second one in M'],
    calls: () => [['checkout', { cartItemId: '00000000-0000-4000-8000-000000000001' }]],
  },
  {
    phrase: 'buy the first one in 9',
    before: ['show me running shoes'],
    calls: (shown) => [
      ['addToCart', { ...pick(product(shown, 0)), size: '9' }],
      ['checkout', { cartItemId: '00000000-0000-4000-8000-000000000001' }],
    ],
  },
  {
    phrase: 'remember that I prefer slim fit',
    calls: () => [['rememberMemory', { fact: 'I prefer slim fit' }]],
    reply: /I'll remember: "I prefer slim fit"/,
  },
  {
    phrase: '/remember keep me under $150',
    calls: () => [['rememberMemory', { fact: 'Keep me under $150' }]],
    reply: /I'll remember: "Keep me under \$150"/,
  },
  {
    phrase: '/remember I prefer neutral sneakers',
    calls: () => [['rememberMemory', { fact: 'I prefer neutral sneakers' }]],
    reply: /I'll remember: "I prefer neutral sneakers"/,
  },
  {
    phrase: 'hi! I am looking for a warm winter jacket',
    calls: () => [['searchProducts', { query: 'warm winter jacket' }]],
  },
  {
    phrase: 'Hello, could you please find me some wool socks? Thanks!',
    calls: () => [['searchProducts', { query: 'wool socks' }]],
  },
  {
    phrase: 'something cheaper, under $80?',
    before: ['show me winter jackets'],
    calls: () => [['searchProducts', { query: 'winter jackets', maxPrice: 80 }]],
  },
  {
    phrase: 'anything cheaper?',
    before: ['show me winter jackets'],
    calls: (shown) => [
      [
        'searchProducts',
        { query: 'winter jackets', maxPrice: (Math.min(...shown.map(({ price }) => price)) - 1) / 100 },
      ],
    ],
  },
  {
    phrase: 'cheaper ones?',
    before: ['best rated winter jackets'],
    calls: (shown) => [
      [
        'searchProducts',
        {
          query: 'winter jackets',
          sortBy: 'rating',
          maxPrice: (Math.min(...shown.map(({ price }) => price)) - 1) / 100,
        },
      ],
    ],
  },
  {
    phrase: 'in size L',
    before: ['show me hoodies under $60'],
    calls: () => [['searchProducts', { query: 'hoodies', maxPrice: 60, size: 'L' }]],
  },
  {
    phrase: 'any from Nike?',
    before: ['show me hoodies'],
    calls: () => [['searchProducts', { query: 'hoodies', brand: 'Nike' }]],
    reply: /^I found no products matching "hoodies" from Nike\. Want me to search again without the brand\?$/,
  },
  {
    phrase: 'any in blue?',
    before: ['show me hoodies'],
    calls: () => [['searchProducts', { query: 'hoodies', color: 'blue' }]],
    reply: /Want me to search again without the color\?$/,
  },
  {
    phrase: 'yes please',
    before: ['show me hoodies', 'any in blue?'],
    calls: () => [['searchProducts', { query: 'hoodies' }]],
    reply: /^I found \d+ products for "hoodies"/,
  },
  {
    phrase: 'more like the first one',
    before: ['show me hoodies'],
    calls: (shown) => [
      [
        'searchProducts',
        {
          query: product(shown, 0).productName.slice(product(shown, 0).brand.length).trim().toLowerCase(),
        },
      ],
    ],
  },
  {
    phrase: 'tell me more about the second one',
    before: ['show me hoodies', 'any in blue?'],
    calls: (shown) => [['getProductDetails', { productId: product(shown, 1).productId }]],
  },
  {
    phrase: 'add it in size L, black if possible',
    before: ['show me winter jackets under $80', 'tell me more about the second one'],
    calls: (shown) => [['addToCart', { ...pick(product(shown, 1)), size: 'L', color: 'Black' }]],
    reply: /\(size L, Black\)/,
  },
  {
    phrase: 'add the jacket in M',
    before: ['show me winter jackets', 'tell me more about the third one'],
    calls: (shown) => [['addToCart', { ...pick(product(shown, 2)), size: 'M' }]],
  },
  {
    phrase: 'also find me a gift for my dad who likes coffee',
    calls: () => [['searchProducts', { query: 'coffee' }]],
    reply: /Coffee/,
  },
  {
    phrase: 'I need a present for my sister',
    calls: () => [],
    reply: /What do they like\?/,
  },
  {
    phrase: 'remove the jacket',
    cart: cartWithTwoJackets,
    calls: () => [['viewCart', {}]],
    reply: /^Which item do you mean\?\n\n- .*Rain Jacket.*\n- .*Winter Jacket/,
  },
  {
    phrase: 'remove the jacket from my cart',
    before: ['show me winter jackets', 'add the second one in L'],
    calls: () => [['removeFromCart', { itemId: '00000000-0000-4000-8000-000000000001' }]],
    reply: /^Removed .*Winter Jacket from your cart\.$/,
  },
  {
    phrase: 'how do the first two differ?',
    before: ['show me hoodies'],
    calls: (shown) => [
      ['compareProducts', { productIds: [product(shown, 0).productId, product(shown, 1).productId] }],
    ],
    reply: /^Here is how they compare:[\s\S]*Differences:/,
  },
  {
    phrase: 'add both in M',
    before: ['show me hoodies', 'compare the first two'],
    calls: (shown) => [
      ['addToCart', { productId: product(shown, 0).productId, size: 'M' }],
      ['addToCart', { productId: product(shown, 1).productId, size: 'M' }],
    ],
    reply: /^Added .+ \(size M\) .+ Added .+ \(size M\)/,
  },
  {
    phrase: 'tell me more about the other one',
    before: ['show me hoodies', 'compare the first two', 'add the cheaper one in M'],
    calls: (shown) => [
      [
        'getProductDetails',
        { productId: [product(shown, 0), product(shown, 1)].sort((a, b) => b.price - a.price)[0]?.productId },
      ],
    ],
  },
  {
    phrase: 'what did I buy?',
    calls: () => [['getOrders', { type: 'checkout' }]],
    reply: /^You don't have any orders yet\./,
  },
  {
    phrase: 'is the jacket delivered?',
    before: ['show me winter jackets', 'add the first one in M', 'check out the jacket'],
    calls: () => [['getOrders', { type: 'checkout' }]],
    reply:
      /^Not yet\. Your order is .*Jacket \(size M.*It is placed and waiting for you to approve the payment/,
  },
  {
    phrase: 'what size did I say my dad wears?',
    calls: () => [['recallMemories', { question: 'what size did I say my dad wears?' }]],
    reply: /^I don't have anything saved about that\./,
  },
  { phrase: 'thanks', calls: () => [], reply: /^You're welcome/ },
  { phrase: 'hi', calls: () => [], reply: /shopping assistant/ },
  { phrase: "what's the weather like today?", calls: () => [], reply: /only help with shopping/ },
  { phrase: 'write me a poem', calls: () => [], reply: /only help with shopping/ },
];

function pick({ productId, productName, price, image, productUrl, retailer }: ProductSummary) {
  return { productId, productName, price, image, productUrl, retailer };
}

describe('the offline model in the SDK tool loop', () => {
  it.each(cases)('"$phrase"', async ({ phrase, before = [], cart, calls, reply }) => {
    const shop = createFakeShop(cart?.() ?? []);
    const earlier = await converse(shop, before);
    const turn = await runTurn(shop, earlier.at(-1)?.messages ?? [], phrase);

    const expected = calls(shownBy(earlier));
    expect(turn.toolCalls.map(({ toolName }) => toolName)).toEqual(expected.map(([name]) => name));
    turn.toolCalls.forEach((call, index) => expect(call.input).toMatchObject(expected[index]?.[1] ?? {}));
    if (reply) expect(turn.text).toMatch(reply);
    expect(turn.text.length).toBeGreaterThan(0);
    expectGrounded(turn, earlier);
  });

  it('answers "what did I buy last week?" from the orders placed in it, looking past the newest five', async () => {
    const shop = createFakeShop();
    const earlier = await converse(shop, [
      'show me hoodies',
      'add the first one in M',
      'check out the hoodie',
    ]);
    const [order] = shop.orders;
    if (!order?.item) throw new Error('no order placed');
    const asked = async (question: string) => {
      const turn = await runTurn(shop, earlier.at(-1)?.messages ?? [], question);
      expect(turn.toolCalls.map(({ toolName, input }) => [toolName, input])).toEqual([
        ['getOrders', { type: 'checkout', limit: 20 }],
      ]);
      return turn.text;
    };
    // The fake shop placed it on 2 January 2026: months before the week asked about.
    order.createdAt = new Date(Date.now() - 40 * 86_400_000).toISOString();
    expect(await asked('what did I buy last week?')).toMatch(
      /^You didn't place any orders in the last week\./,
    );
    expect(await asked('what did I buy this month?')).toMatch(
      /^You didn't place any orders in the last month\./,
    );
    order.createdAt = new Date(Date.now() - 3 * 86_400_000).toISOString();
    expect(await asked('what did I buy last week?')).toContain(order.item.productName);
    expect(await asked('did I order anything yesterday?')).toMatch(
      /^You didn't place any orders yesterday\./,
    );
  });

  it('lists search results with the prices the search returned', async () => {
    const turn = await runTurn(createFakeShop(), [], 'show me hoodies');
    const [{ products }] = turn.outputs as [{ products: ProductSummary[] }];
    for (const { productName, price } of products)
      expect(turn.text).toContain(`${productName} - ${usd(price)}`);
  });

  it('refuses a size the product does not come in, without calling a tool', async () => {
    const shop = createFakeShop();
    const [search] = await converse(shop, ['show me hoodies']);
    const turn = await runTurn(shop, search?.messages ?? [], 'add the first one in size 42');
    expect(turn.toolCalls).toEqual([]);
    expect(turn.text).toMatch(/doesn't come in size 42\. Available sizes: XS, S, M, L, XL, XXL\./);
  });

  it('asks which result is meant when an ordinal is out of range', async () => {
    const shop = createFakeShop();
    const [search] = await converse(shop, ['show me hoodies']);
    const turn = await runTurn(shop, search?.messages ?? [], 'add the ninth one');
    expect(turn.toolCalls).toEqual([]);
    expect(turn.text).toBe('The last search showed only 5 products. Which one do you mean?');
  });

  it('asks for a search first when "it" points at nothing', async () => {
    const turn = await runTurn(createFakeShop(), [], 'add it to my cart');
    expect(turn.toolCalls).toEqual([]);
    expect(turn.text).toMatch(/don't have any search results/);
  });

  it('searches for a product named by words and lists the matches when several fit', async () => {
    const turn = await runTurn(createFakeShop(), [], 'tell me more about the Harbor & Pine hoodie');
    expect(turn.toolCalls).toEqual([
      { toolName: 'searchProducts', input: expect.objectContaining({ query: 'harbor & pine hoodie' }) },
    ]);
    expect(turn.text).toMatch(/^Which one do you mean\?/);
    expectGrounded(turn);
  });

  it('reports a failed tool with its error instead of claiming success', async () => {
    const shop = createFakeShop([cartItem('hoodie', HOODIE_ID)]);
    const [listing] = await converse(shop, ["what's in my cart"]);
    shop.cart.splice(0, shop.cart.length);
    const turn = await runTurn(shop, listing?.messages ?? [], 'remove the hoodie');
    expect(turn.toolCalls.map(({ toolName }) => toolName)).toEqual(['removeFromCart']);
    expect(turn.text).toBe(
      'Sorry, I couldn\'t remove it from your cart: Cart item not found. Say "show my cart" to see what is in it now.',
    );
  });

  it('says the cart is already empty rather than removing nothing', async () => {
    const turn = await runTurn(createFakeShop(), [], 'empty my cart');
    expect(turn.toolCalls.map(({ toolName }) => toolName)).toEqual(['viewCart']);
    expect(turn.text).toBe('Your cart is already empty.');
  });

  it('lists the cart when an item to remove is not in it', async () => {
    const turn = await runTurn(createFakeShop(cartWithHoodieAndBeanie()), [], 'remove the sunglasses');
    expect(turn.toolCalls.map(({ toolName }) => toolName)).toEqual(['viewCart']);
    expect(turn.text).toMatch(/^There's no sunglasses in your cart\. It has:\n\n- .*Hoodie/);
  });

  it('says an empty cart in words when asked to remove something from it', async () => {
    const turn = await runTurn(createFakeShop(), [], 'remove the jacket from my cart');
    expect(turn.toolCalls.map(({ toolName }) => toolName)).toEqual(['viewCart']);
    expect(turn.text).toBe('Your cart is empty, so there is nothing to remove.');
  });

  it('adds the nearest colour when the wished one is missing "if possible", and says which', async () => {
    const shop = createFakeShop();
    const earlier = await converse(shop, [
      'show me winter jackets under $80',
      'tell me more about the first one',
    ]);
    const jacket = product(shownBy(earlier), 0);
    expect(jacket.colors).not.toContain('Black');
    const turn = await runTurn(shop, earlier.at(-1)?.messages ?? [], 'add it in size L, black if possible');
    expect(turn.toolCalls).toEqual([
      { toolName: 'addToCart', input: { ...pick(jacket), size: 'L', color: jacket.colors?.[0] } },
    ]);
    expect(turn.text).toBe(
      `Added ${jacket.productName} (size L, ${jacket.colors?.[0]}) to your cart for ${usd(jacket.price)}. It doesn't come in black, so I chose ${jacket.colors?.[0]}.`,
    );
  });

  it('still asks when a colour the shopper insists on is missing', async () => {
    const shop = createFakeShop();
    const earlier = await converse(shop, [
      'show me winter jackets under $80',
      'tell me more about the first one',
    ]);
    const turn = await runTurn(shop, earlier.at(-1)?.messages ?? [], 'add it in size L in black');
    expect(turn.toolCalls).toEqual([]);
    expect(turn.text).toMatch(/doesn't come in black\. Available colors:/);
  });

  it('tells the shopper what failed and what to do when a tool answers success: false', async () => {
    const shop = createFakeShop();
    const { description, inputSchema, outputSchema } = SHOPPING_TOOLS.getOrders;
    const failing = {
      ...shop,
      tools: {
        ...shop.tools,
        getOrders: tool({
          description,
          inputSchema,
          outputSchema,
          execute: async () => toolFailed('CheckoutOrderCreationError', 'the provider is unavailable'),
        }),
      },
    };
    const turn = await runTurn(failing, [], 'has my order shipped?');
    expect(turn.toolCalls.map(({ toolName }) => toolName)).toEqual(['getOrders']);
    expect(turn.text).toBe(
      "Sorry, I couldn't look up your orders: the provider is unavailable. Try again in a moment.",
    );
  });

  it('answers instead of asking again for a result it cannot read', async () => {
    const shop = createFakeShop();
    const { description, inputSchema } = SHOPPING_TOOLS.addToCart;
    const brokenShop = {
      ...shop,
      tools: {
        ...shop.tools,
        addToCart: tool({ description, inputSchema, execute: async () => ({ ok: true }) }),
      },
    };
    const [search] = await converse(shop, ['show me hoodies']);
    const turn = await runTurn(brokenShop, search?.messages ?? [], 'add the first one in M');
    expect(turn.toolCalls.map(({ toolName }) => toolName)).toEqual(['addToCart']);
    expect(turn.text).toBe(
      "Sorry, I couldn't make sense of what came back when I tried to add it to your cart.",
    );
  });
});
