import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { ProductSummary } from '@shop/product-search';
import type { ModelMessage } from 'ai';
import { expect } from 'vitest';
import { OfflineChatModel, type CartItemView } from '../src';
import { createFakeShop, runTurn, type FakeShop, type Turn } from './fake-shop';

/**
 * A shopper's three chats with the assistant, from their side: what they say, which tools each turn must
 * call (inputs matched partially) and the facts its answer must state. Expectations are worked out from
 * what the shopper was shown before the turn, so they name the products the catalogue really returned.
 */

const usd = (cents: number) => `$${(cents / 100).toFixed(2)}`;
const WALLET_CENTS = 5000;

/** What the shopper has seen so far in this chat, and the shop's own records. */
export interface Seen {
  /** The products the latest search of this chat listed. */
  shown: ProductSummary[];
  /** The products the latest comparison of this chat put side by side. */
  compared: ProductSummary[];
  cart: CartItemView[];
  shop: FakeShop;
}

type ExpectedCall = [string, Record<string, unknown>?];

export interface ScriptTurn {
  say: string;
  calls: (seen: Seen) => ExpectedCall[];
  facts: (seen: Seen) => (string | RegExp)[];
}

export interface ScriptChat {
  name: string;
  /** Happens in the shop before the chat starts (the provider ships an order). */
  before?: (shop: FakeShop) => void;
  turns: ScriptTurn[];
}

const at = (products: ProductSummary[], index: number): ProductSummary => {
  const product = products.at(index);
  if (!product) throw new Error(`nothing shown at ${index}`);
  return product;
};
const cheapest = (products: ProductSummary[]) =>
  [...products].sort((a, b) => a.price - b.price)[0] as ProductSummary;
const bestRated = (products: ProductSummary[]) =>
  [...products].sort((a, b) => b.rating - a.rating)[0] as ProductSummary;
const offering = (products: ProductSummary[], color: string) => {
  const matching = products.filter(({ colors }) => colors?.includes(color));
  if (matching.length !== 1) throw new Error(`expected one product in ${color}`);
  return matching[0] as ProductSummary;
};
const itemNamed = (cart: CartItemView[], word: string) => {
  const item = cart.find(({ productName }) => productName.toLowerCase().includes(word));
  if (!item) throw new Error(`no ${word} in the cart`);
  return item;
};
const ids = (...products: ProductSummary[]) => ({ productIds: products.map(({ productId }) => productId) });
const none = (): ExpectedCall[] => [];

export const SHOPPER_SCRIPT: ScriptChat[] = [
  {
    name: 'Chat 1: a backpack and a hoodie',
    turns: [
      {
        say: "hi! I'm looking for a hoodie",
        calls: () => [['searchProducts', { query: 'hoodie' }]],
        facts: () => [/I found \d+ products for "hoodie"/],
      },
      {
        say: 'actually show me a backpack',
        calls: () => [['searchProducts', { query: 'backpack' }]],
        facts: () => [/products for "backpack"/],
      },
      {
        say: 'ok, something cheaper, maybe under $100?',
        calls: () => [['searchProducts', { query: 'backpack', maxPrice: 100 }]],
        facts: () => ['"backpack" within your price range'],
      },
      {
        say: 'how do the first two differ?',
        calls: ({ shown }) => [['compareProducts', ids(at(shown, 0), at(shown, 1))]],
        facts: ({ shown }) => [
          'Differences:',
          `Price: ${usd(at(shown, 0).price)} vs ${usd(at(shown, 1).price)}`,
          `Rating: ${at(shown, 0).rating}/5 vs ${at(shown, 1).rating}/5`,
        ],
      },
      {
        say: 'which is better, the first or the third?',
        calls: ({ shown }) => [['compareProducts', ids(at(shown, 0), at(shown, 2))]],
        facts: ({ shown }) => [`I'd pick ${bestRated([at(shown, 0), at(shown, 2)]).productName}`],
      },
      {
        say: 'put the cheaper one in the cart',
        calls: ({ compared }) => [['addToCart', { productId: cheapest(compared).productId }]],
        facts: ({ compared }) => [
          `Added ${cheapest(compared).productName}`,
          `for ${usd(cheapest(compared).price)}`,
        ],
      },
      { say: 'thanks', calls: none, facts: () => ["You're welcome"] },
      {
        say: 'show me hoodies',
        calls: () => [['searchProducts', { query: 'hoodies' }]],
        facts: () => [/products for "hoodies"/],
      },
      {
        say: 'compare the first two',
        calls: ({ shown }) => [['compareProducts', ids(at(shown, 0), at(shown, 1))]],
        facts: ({ shown }) => [at(shown, 0).productName, at(shown, 1).productName, 'Colors:'],
      },
      {
        say: 'add the black one in M and show me matching socks',
        calls: ({ compared }) => [
          ['addToCart', { productId: offering(compared, 'Black').productId, size: 'M', color: 'Black' }],
          ['searchProducts', { query: 'socks', color: 'black' }],
        ],
        facts: ({ compared }) => [
          `Added ${offering(compared, 'Black').productName} (size M, Black)`,
          '"socks" in black',
        ],
      },
      {
        say: 'tell me about the best rated one',
        calls: ({ shown }) => [['getProductDetails', { productId: bestRated(shown).productId }]],
        facts: ({ shown }) => [bestRated(shown).productName, `Rated ${bestRated(shown).rating}/5`],
      },
      {
        say: 'add it in L',
        calls: ({ shown }) => [['addToCart', { productId: bestRated(shown).productId, size: 'L' }]],
        facts: ({ shown }) => [`Added ${bestRated(shown).productName} (size L`],
      },
      {
        say: "what's in my cart?",
        calls: () => [['viewCart', {}]],
        facts: ({ cart }) => [
          'Your cart has 3 items',
          `Total: ${usd(cart.reduce((sum, { price }) => sum + price, 0))}`,
        ],
      },
      {
        say: 'please remove the backpack',
        calls: ({ cart }) => [['removeFromCart', { itemId: itemNamed(cart, 'backpack').id }]],
        facts: ({ cart }) => [`Removed ${itemNamed(cart, 'backpack').productName} from your cart`],
      },
    ],
  },
  {
    name: 'Chat 2: checking out, with too little in the wallet for one item',
    turns: [
      { say: 'hello', calls: none, facts: () => ['shopping assistant'] },
      {
        say: 'could you check out the hoodie?',
        calls: ({ cart }) => [
          ['viewCart', {}],
          ['checkout', { cartItemId: itemNamed(cart, 'hoodie').id }],
        ],
        facts: () => ['too little USDC', 'Fund your wallet'],
      },
      {
        say: 'ok, check out the socks then',
        calls: ({ cart }) => [['checkout', { cartItemId: itemNamed(cart, 'socks').id }]],
        facts: ({ cart }) => ['I created order', itemNamed(cart, 'socks').productName, 'one-time code'],
      },
      {
        say: 'has my order shipped?',
        calls: () => [['getOrders', { type: 'checkout', limit: 1 }]],
        facts: ({ cart }) => ['Not yet', itemNamed(cart, 'socks').productName, 'approve the payment'],
      },
      {
        say: 'remember that my dad wears size L',
        calls: () => [['rememberMemory', { fact: 'My dad wears size L' }]],
        facts: () => [`I'll remember: "My dad wears size L"`],
      },
      {
        say: 'find me purple unicorn slippers',
        calls: () => [['searchProducts', { query: 'unicorn slippers', color: 'purple' }]],
        facts: () => ['I found no products', 'search again without the color?'],
      },
      {
        say: 'yes please',
        calls: () => [['searchProducts', { query: 'unicorn slippers' }]],
        facts: () => ['I found no products', 'search for "slippers" instead?'],
      },
      { say: 'thanks!', calls: none, facts: () => ["You're welcome"] },
    ],
  },
  {
    name: 'Chat 3: a gift for dad, days later (the socks have shipped)',
    before: (shop) => {
      const [socks] = shop.orders;
      if (socks) Object.assign(socks, { status: 'in_progress', phase: 'shipped' });
    },
    turns: [
      {
        say: 'what size did I say my dad wears?',
        calls: () => [['recallMemories', { question: 'what size did I say my dad wears?' }]],
        facts: () => ['You told me: "My dad wears size L"'],
      },
      {
        say: 'show me beanies under $30',
        calls: () => [['searchProducts', { query: 'beanies', maxPrice: 30 }]],
        facts: () => ['"beanies" within your price range'],
      },
      {
        say: 'compare the first two',
        calls: ({ shown }) => [['compareProducts', ids(at(shown, 0), at(shown, 1))]],
        facts: ({ shown }) => [`Price: ${usd(at(shown, 0).price)} vs ${usd(at(shown, 1).price)}`],
      },
      {
        say: 'add the cheaper one',
        calls: ({ compared }) => [['addToCart', { productId: cheapest(compared).productId }]],
        facts: ({ compared }) => [`Added ${cheapest(compared).productName}`],
      },
      {
        say: 'tell me about the other one',
        calls: ({ compared }) => [
          [
            'getProductDetails',
            { productId: compared.find((product) => product !== cheapest(compared))?.productId },
          ],
        ],
        facts: ({ compared }) => [
          compared.find((product) => product !== cheapest(compared))?.productName ?? '',
        ],
      },
      {
        say: 'where is my last order?',
        calls: () => [['getOrders', { type: 'checkout', limit: 1 }]],
        facts: ({ shop }) => [shop.orders[0]?.item?.productName ?? '', 'shipped and on its way'],
      },
      {
        say: 'has the hoodie shipped?',
        calls: () => [['getOrders', { type: 'checkout' }]],
        facts: () => [`I couldn't find an order for "hoodie"`, 'show my orders'],
      },
      {
        say: 'what did I buy?',
        calls: () => [['getOrders', { type: 'checkout' }]],
        facts: ({ shop }) => [`You have one order: ${shop.orders[0]?.item?.productName ?? ''}`],
      },
      {
        say: 'remove the hoodie',
        calls: ({ cart }) => [
          ['viewCart', {}],
          ['removeFromCart', { itemId: itemNamed(cart, 'hoodie').id }],
        ],
        facts: ({ cart }) => [`Removed ${itemNamed(cart, 'hoodie').productName}`],
      },
      { say: "what's the weather like?", calls: none, facts: () => ['only help with shopping'] },
      { say: 'ok thanks', calls: none, facts: () => ["You're welcome"] },
    ],
  },
];

export interface ScriptedTurn {
  chat: string;
  say: string;
  seen: Seen;
  turn: Turn;
}

function latestProducts(turns: Turn[], toolName: string): ProductSummary[] {
  const results = turns.flatMap(({ parts }) =>
    parts.flatMap((part) =>
      part.type === 'tool-result' && part.toolName === toolName
        ? [part.output as { products?: unknown }]
        : [],
    ),
  );
  const found = results.findLast((result) => Array.isArray(result.products) && result.products.length > 0);
  return (found?.products as ProductSummary[] | undefined) ?? [];
}

/** Runs the script's chats one after another against one shop: each chat starts with no history. */
export async function runScript(model: LanguageModelV3 = new OfflineChatModel()): Promise<ScriptedTurn[]> {
  const shop = createFakeShop([], { walletCents: WALLET_CENTS });
  const scripted: ScriptedTurn[] = [];
  for (const chat of SHOPPER_SCRIPT) {
    chat.before?.(shop);
    let history: ModelMessage[] = [];
    const turns: Turn[] = [];
    for (const { say } of chat.turns) {
      const seen: Seen = {
        shown: latestProducts(turns, 'searchProducts'),
        compared: latestProducts(turns, 'compareProducts'),
        cart: [...shop.cart],
        shop,
      };
      const turn = await runTurn(shop, history, say, [], model);
      turns.push(turn);
      history = turn.messages;
      scripted.push({ chat: chat.name, say, seen, turn });
    }
  }
  return scripted;
}

/** Asserts every turn's tool calls, in order, and the facts of its answer. */
export function expectScriptFollowed(scripted: ScriptedTurn[]): void {
  const steps = SHOPPER_SCRIPT.flatMap((chat) => chat.turns);
  expect(scripted.map(({ say }) => say)).toEqual(steps.map(({ say }) => say));
  scripted.forEach(({ say, seen, turn }, index) => {
    const step = steps[index] as ScriptTurn;
    const expected = step.calls(seen);
    expect({ say, tools: turn.toolCalls.map(({ toolName }) => toolName) }).toEqual({
      say,
      tools: expected.map(([name]) => name),
    });
    turn.toolCalls.forEach(({ input }, position) =>
      expect({ say, input }).toMatchObject({ say, input: expected[position]?.[1] ?? {} }),
    );
    for (const fact of step.facts(seen)) {
      if (typeof fact === 'string') expect(turn.text, say).toContain(fact);
      else expect(turn.text, say).toMatch(fact);
    }
  });
}

/** The conversation as a shopper would read it, with each turn's tool calls. */
export function transcriptOf(scripted: ScriptedTurn[]): string {
  const lines: string[] = [];
  let chat = '';
  for (const { chat: name, say, turn } of scripted) {
    if (name !== chat) {
      lines.push('', `## ${name}`, '');
      chat = name;
    }
    lines.push(`**Shopper:** ${say}`, '');
    for (const { toolName, input } of turn.toolCalls)
      lines.push(`    -> ${toolName} ${JSON.stringify(input)}`);
    if (turn.toolCalls.length > 0) lines.push('');
    lines.push(...turn.text.split('\n').map((line) => `> ${line}`), '');
  }
  return lines.join('\n');
}

export function writeTranscript(name: string, scripted: ScriptedTurn[]): string {
  const directory = resolve(__dirname, '..', '..', '..', 'test-output');
  mkdirSync(directory, { recursive: true });
  const path = resolve(directory, name);
  writeFileSync(path, `# ${scripted.length} turns\n${transcriptOf(scripted)}\n`);
  return path;
}
