import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { ProductSummary } from '@shop/product-search';
import { describe, expect, it } from 'vitest';
import { buildSystemPrompt, compareProductsOutput, planOfflineAnswer } from '../src';
import { readConversation } from '../src/offline/conversation';
import { parseClauses, parseIntent } from '../src/offline/intent';
import { parsePositions, parseReference } from '../src/offline/reference';
import { comparisonReply, failureReply } from '../src/offline/replies';
import { resolveProduct, resolveProducts } from '../src/offline/resolve-target';
import type { ShoppingState } from '../src/offline/shopping-state';
import { createFakeShop, runTurn } from './fake-shop';

const product = (id: string, price: number, rating: number, colors: string[]): ProductSummary => ({
  productId: id,
  productName: `Product ${id}`,
  price,
  image: `https://images.example.com/${id}.jpg`,
  productUrl: `https://shop.example.com/${id}`,
  retailer: 'Example',
  brand: 'Brand',
  category: 'apparel',
  rating,
  reviewCount: 10,
  colors,
});

const A = product('A', 5000, 4.1, ['Navy', 'Rust']);
const B = product('B', 3000, 4.8, ['Black', 'Olive']);
const C = product('C', 2000, 3.5, ['Black', 'Tan']);
const D = product('D', 9000, 4.9, ['Heather Grey']);

const state = (changes: Partial<ShoppingState> = {}): ShoppingState => ({
  listing: { input: { query: 'hoodie' }, products: [A, B, C, D], total: 4 },
  lastListing: 'search',
  cart: { items: [], listed: false, fresh: false },
  seenItems: new Map(),
  ...changes,
});
const afterComparing = (compared: ProductSummary[], changes: Partial<ShoppingState> = {}) =>
  state({ compared, lastListing: 'compare', ...changes });

const pick = (message: string, on: ShoppingState) => {
  const resolved = resolveProduct(parseReference(message), on);
  return resolved.ok ? resolved.value.productId : resolved.problem.kind;
};

describe('references by attribute and superlative', () => {
  it.each([
    // The issue's own utterances.
    ['the cheaper one', { kind: 'superlative', by: 'cheapest' }],
    ['the cheapest', { kind: 'superlative', by: 'cheapest' }],
    ['the best rated', { kind: 'superlative', by: 'best-rated' }],
    ['the black one', { kind: 'attribute', color: 'black' }],
    ['the last one', { kind: 'position', index: -1 }],
    ['both', { kind: 'both' }],
    ['the other one', { kind: 'other' }],
    // More of the same, as shoppers say them.
    ['put the cheaper one in the cart', { kind: 'superlative', by: 'cheapest' }],
    ['the cheaper of the two', { kind: 'superlative', by: 'cheapest' }],
    ['add the cheaper in M', { kind: 'superlative', by: 'cheapest' }],
    ['the more expensive one', { kind: 'superlative', by: 'priciest' }],
    ['I want the pricier one', { kind: 'superlative', by: 'priciest' }],
    ['the better rated one', { kind: 'superlative', by: 'best-rated' }],
    ['add the higher-rated one', { kind: 'superlative', by: 'best-rated' }],
    ['what about the best rated?', { kind: 'superlative', by: 'best-rated' }],
    ['the cheapest one please', { kind: 'superlative', by: 'cheapest' }],
    ['the navy one', { kind: 'attribute', color: 'navy' }],
    ['that gray one', { kind: 'attribute', color: 'grey' }],
    ['add the heather grey one in L', { kind: 'attribute', color: 'heather grey' }],
    ['add both in M', { kind: 'both' }],
    ['tell me about the other', { kind: 'other' }],
    ["I'll take the other one instead", { kind: 'other' }],
  ])('"%s"', (message, reference) => {
    expect(parseReference(message)).toEqual(reference);
  });

  it.each(['something cheaper', 'anything better?', 'cheaper ones?', 'show me something more expensive'])(
    'does not read "%s" as pointing at one product (it is a search)',
    (message) => {
      expect(parseReference(message).kind).not.toBe('superlative');
    },
  );
});

describe('what the references resolve to', () => {
  it('picks among the products last compared, not the whole listing, after a comparison', () => {
    const compared = afterComparing([A, B]);
    expect(pick('the cheaper one', compared)).toBe('B');
    expect(pick('the cheapest', state())).toBe('C');
    expect(pick('the more expensive one', compared)).toBe('A');
    expect(pick('the best rated', state())).toBe('D');
    expect(pick('the better rated one', compared)).toBe('B');
    expect(pick('add the last one', afterComparing([A, C]))).toBe('C');
    expect(pick('add the last one', state())).toBe('D');
    expect(pick('the second one', afterComparing([A, C]))).toBe('B');
  });

  it('picks the one offered in a colour, and asks when several are', () => {
    expect(pick('the black one', afterComparing([A, B]))).toBe('B');
    expect(pick('the navy one', state())).toBe('A');
    expect(resolveProduct(parseReference('the black one'), state())).toEqual({
      ok: false,
      problem: { kind: 'ambiguous', names: ['Product B', 'Product C'] },
    });
    expect(resolveProduct(parseReference('the pink one'), afterComparing([A, B]))).toEqual({
      ok: false,
      problem: { kind: 'not-found', phrase: 'pink one' },
    });
  });

  it('takes "the other one" as the compared product not in focus, whether looked at or added', () => {
    expect(pick('the other one', afterComparing([A, B], { focus: { kind: 'product', product: A } }))).toBe(
      'B',
    );
    const added = {
      id: '00000000-0000-4000-8000-000000000001',
      productId: 'B',
      productName: 'Product B',
      price: 3000,
      image: '',
      size: 'M',
      color: 'Black',
      productUrl: '',
      retailer: 'Example',
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    expect(pick('the other one', afterComparing([A, B], { focus: { kind: 'cart-item', item: added } }))).toBe(
      'A',
    );
    expect(pick('the other one', afterComparing([A, B]))).toBe('ambiguous');
  });

  it('takes "both" as the pair compared, and asks which two among more', () => {
    const both = resolveProducts(parseReference('add both in M'), afterComparing([A, C]));
    expect(both.ok && both.value.map(({ productId }) => productId)).toEqual(['A', 'C']);
    expect(resolveProducts(parseReference('both'), state())).toMatchObject({
      ok: false,
      problem: { kind: 'ambiguous' },
    });
  });
});

describe('positions a comparison names', () => {
  it.each([
    ['how do the first two differ?', [0, 1]],
    ['which is better, the first or the third?', [0, 2]],
    ['compare the top 3', [0, 1, 2]],
    ['compare #1 and #3', [0, 2]],
    ['how do the last two compare?', [-2, -1]],
    ['compare the second and the last one', [1, -1]],
    ["what's the difference between the 2nd and 4th", [1, 3]],
    ['the first one', []],
  ])('"%s"', (message, positions) => {
    expect(parsePositions(message)).toEqual(positions);
  });
});

describe('intents', () => {
  it.each([
    ['how do the first two differ?', { kind: 'compare', targets: [0, 1] }],
    ['which is better, the first or the third?', { kind: 'compare', targets: [0, 2], ask: 'better' }],
    ['compare the first two', { kind: 'compare', targets: [0, 1] }],
    ['which one is cheaper, the first or second?', { kind: 'compare', targets: [0, 1], ask: 'cheaper' }],
    ["what's the difference between the second and the third?", { kind: 'compare', targets: [1, 2] }],
    ['first vs third', { kind: 'compare', targets: [0, 2] }],
    ["which one's better, the second or the fourth?", { kind: 'compare', targets: [1, 3], ask: 'better' }],
  ])('reads "%s" as a comparison', (message, expected) => {
    const intent = parseIntent(message);
    expect(intent).toEqual({
      kind: 'compare',
      targets: expected.targets.map((index) => ({ kind: 'position', index })),
      ...('ask' in expected && { ask: expected.ask }),
    });
  });

  it('reads a comparison of named products and of "both" or "them"', () => {
    const named = parseIntent('compare the Harbor & Pine and the Bramblewood hoodie');
    expect(named).toMatchObject({
      kind: 'compare',
      targets: [
        { kind: 'words', phrase: 'harbor & pine' },
        { kind: 'words', phrase: 'bramblewood hoodie' },
      ],
    });
    expect(parseIntent('compare both')).toEqual({ kind: 'compare', targets: [{ kind: 'both' }] });
    expect(parseIntent('compare them')).toEqual({ kind: 'compare', targets: [{ kind: 'pronoun' }] });
  });

  it.each<
    [string, { kind: string; latest?: boolean; ask?: string; phrase?: string; within?: { label: string } }]
  >([
    ['has my order shipped?', { kind: 'orders', latest: true, ask: 'shipped' }],
    ['what did I buy last week?', { kind: 'orders', latest: false, within: { label: 'the last week' } }],
    ['did I order anything yesterday?', { kind: 'orders', latest: false, within: { label: 'yesterday' } }],
    ['what did I order this month?', { kind: 'orders', latest: false, within: { label: 'the last month' } }],
    [
      'has the jacket I bought today shipped?',
      { kind: 'orders', ask: 'shipped', within: { label: 'today' }, phrase: 'jacket' },
    ],
    ['is the jacket delivered?', { kind: 'orders', latest: false, ask: 'delivered', phrase: 'jacket' }],
    ['where is my last order?', { kind: 'orders', latest: true }],
    ['track my package', { kind: 'orders', latest: false }],
    ['show me my orders', { kind: 'orders', latest: false }],
    ['did I order the wool socks?', { kind: 'orders', latest: false, phrase: 'wool socks' }],
    ['has the hoodie arrived yet?', { kind: 'orders', latest: false, ask: 'delivered', phrase: 'hoodie' }],
    ["where's my latest purchase", { kind: 'orders', latest: true }],
  ])('reads "%s" as an order question', (message, { phrase, ...expected }) => {
    const intent = parseIntent(message);
    expect(intent).toMatchObject(expected);
    if (intent.kind !== 'orders') throw new Error('not an order question');
    expect(intent.about?.kind === 'words' ? intent.about.phrase : undefined).toBe(phrase);
    if (!('within' in expected)) expect(intent.within).toBeUndefined();
  });

  it.each([
    ["where's my cart?", 'view-cart'],
    ['order the second one', 'checkout'],
    ['buy the first one in 9', 'checkout'],
    ['remove the jacket I ordered', 'remove'],
    ['show me track pants', 'search'],
  ])('keeps "%s" what it was (%s), not an order question', (message, kind) => {
    expect(parseIntent(message).kind).toBe(kind);
  });

  it.each([
    'what size did I say my dad wears?',
    'do you remember my shoe size?',
    'what did I tell you about my budget?',
    'remind me what colour I like',
    'what did I ask you to remember?',
  ])('reads "%s" as a question about what was remembered', (message) => {
    expect(parseIntent(message)).toEqual({ kind: 'recall', question: message });
  });

  it.each([
    ['actually show me a backpack', 'backpack'],
    ['also find me wool socks', 'wool socks'],
    ['maybe some sneakers', 'sneakers'],
    ['ok, show me jackets', 'jackets'],
    ['please find hats', 'hats'],
    ['could you find me a scarf?', 'scarf'],
    ['thanks! now show me belts', 'belts'],
    ['hmm, actually maybe a beanie', 'beanie'],
    ['ok so could you also look for rain jackets please', 'rain jackets'],
    ['alright, any sunglasses?', 'sunglasses'],
  ])('keeps filler and hedges out of the query of "%s"', (message, query) => {
    const intent = parseIntent(message);
    expect(intent).toMatchObject({ kind: 'search', request: { input: { query } } });
  });

  it.each(['thanks', 'thank you!', 'ok thanks', 'thanks a lot', 'cheers'])(
    'answers "%s" on its own as thanks',
    (message) => {
      expect(parseIntent(message)).toEqual({ kind: 'thanks' });
    },
  );
});

describe('several requests in one message', () => {
  const kinds = (message: string) => parseClauses(message).map(({ intent }) => intent.kind);

  it('splits where each part is a request of its own', () => {
    const [add, search] = parseClauses('add the black one in M and show me matching socks');
    expect(add?.intent).toMatchObject({
      kind: 'add',
      target: { kind: 'attribute', color: 'black' },
      wish: { size: 'M', color: 'black' },
    });
    expect(search?.intent).toMatchObject({
      kind: 'search',
      request: { input: { query: 'socks' }, matching: true },
    });
    expect(kinds('show me hoodies and then add the first one')).toEqual(['search', 'add']);
    expect(kinds('remove the hoodie and check out the socks')).toEqual(['remove', 'checkout']);
    expect(kinds('remember that I wear M, then show me jackets')).toEqual(['remember', 'search']);
    expect(kinds('compare the first two and tell me more about the third')).toEqual(['compare', 'details']);
  });

  it('keeps a message whole when its parts are not each a request', () => {
    expect(kinds('compare the first and the third')).toEqual(['compare']);
    expect(kinds('a gift for my dad who likes coffee and tea')).toEqual(['search']);
    expect(kinds('hi and show me hats')).toEqual(['search']);
    expect(kinds('remove the hoodie and the beanie')).toEqual(['remove']);
  });
});

describe('answers say what happened and what to do next', () => {
  it.each([
    ['checkout', 'Your wallet holds too little USDC for this item', undefined, /Fund your wallet with USDC/],
    ['checkout', 'refused', 'InsufficientFundsError', /Fund your wallet/],
    [
      'addToCart',
      'The same product, size and color is already in the cart',
      undefined,
      /another size or color/,
    ],
    ['addToCart', 'The cart already holds 10 items', 'CartFullError', /Remove an item first/],
    ['getOrders', 'No such order', 'OrderNotFoundError', /show my orders/],
    ['compareProducts', 'No product with id X', 'PRODUCT_NOT_FOUND', /search again/],
    ['searchProducts', 'the product search is unavailable right now', undefined, /Try again in a moment/],
    ['recallMemories', 'the memory service is unavailable right now', 'MEMORY_UNAVAILABLE', /Try again/],
  ])('after %s fails with "%s"', (tool, error, code, next) => {
    const text = failureReply(tool, error, code);
    expect(text).toMatch(/^Sorry, I couldn't /);
    expect(text).toContain(error.replace(/\.$/, ''));
    expect(text).toMatch(next);
  });

  it('answers a comparison with what differs, what is shared, a verdict when asked, and ways to go on that fit', () => {
    const output = compareProductsOutput([A, B]);
    if (!output.success) throw new Error('comparison failed');
    const text = comparisonReply({ ...output, products: [A, B] }, 'better');
    expect(text).toContain('- Price: $50.00 vs $30.00');
    expect(text).toContain('- Rating: 4.1/5 vs 4.8/5');
    expect(text).toContain('Both share: reviews 10; brand Brand; retailer Example; category apparel.');
    expect(text).toContain("I'd pick Product B: rated 4.8/5 from 10 reviews, for $30.00.");
    expect(text).toMatch(
      /Say "add the cheaper one", "add the navy one" or "tell me more about the other one" to go on\.$/,
    );
    expect(comparisonReply({ ...output, products: [A, B] }, 'cheaper')).toContain(
      'The cheaper one is Product B at $30.00.',
    );
  });

  it('says an empty cart with what to do next', async () => {
    const turn = await runTurn(createFakeShop(), [], "what's in my cart?");
    expect(turn.text).toBe("Your cart is empty. Tell me what you're looking for and I'll find it.");
  });

  it('reads a result with success false as a failure, code and message kept', () => {
    const conversation = readConversation([
      { role: 'user', content: [{ type: 'text', text: 'what did I buy?' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'getOrders', input: {} }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'getOrders',
            output: { type: 'json', value: { success: false, code: 'X', message: 'down' } },
          },
        ],
      },
    ]);
    expect(conversation.current[0]?.outcome).toEqual({ ok: false, error: 'down', code: 'X' });
  });

  it('answers a recall question from the saved preferences when no recall tool is offered', () => {
    const prompt: LanguageModelV3Prompt = [
      {
        role: 'system',
        content: buildSystemPrompt({ preferences: ['I prefer slim fit', 'My dad wears size L'] }),
      },
      { role: 'user', content: [{ type: 'text', text: 'what size did I say my dad wears?' }] },
    ];
    expect(planOfflineAnswer(prompt, []).step).toEqual({
      kind: 'text',
      text: 'You told me: "My dad wears size L".',
    });
    const nothing: LanguageModelV3Prompt = [
      prompt[0]!,
      { role: 'user', content: [{ type: 'text', text: 'what did I tell you about my budget?' }] },
    ];
    expect(planOfflineAnswer(nothing, []).step).toMatchObject({
      kind: 'text',
      text: expect.stringMatching(/^I don't have anything saved about that\./),
    });
  });
});
