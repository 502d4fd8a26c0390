import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { UIMessageChunk } from 'ai';
import { createChatModel, OFFLINE_MODEL_ID, OfflineChatModel } from '@shop/assistant';
import { startModelSandbox, type ModelSandbox } from '@shop/sandbox-model';
import { chat, SwitchableModel, textOf, toolCallsOf, userMessage } from './chat-harness';
import { startTestStack, TestClient, TestStack } from './stack';

const model = new SwitchableModel();
let stack: TestStack;
let sandbox: ModelSandbox;

beforeAll(async () => {
  sandbox = await startModelSandbox();
  stack = await startTestStack('chatconversation', {}, { chatModel: model });
});
afterAll(async () => {
  await stack?.stop();
  await sandbox?.close();
});

/** The default assistant's two forms: the stand-in reached by the production client, and the in-process model. */
const models: { name: string; make: () => LanguageModelV3 }[] = [
  {
    name: 'the model stand-in through the production client',
    make: () =>
      createChatModel({
        OPENAI_API_KEY: sandbox.apiKey,
        OPENAI_BASE_URL: sandbox.baseURL,
        CHAT_MODEL: OFFLINE_MODEL_ID,
      }),
  },
  { name: 'the in-process offline model', make: () => new OfflineChatModel() },
];

interface CartItem {
  id: string;
  productId: string;
  productName: string;
  size: string;
  color: string;
}

/** One turn as the shopper lived it: what the assistant did and what it answered. */
interface Turn {
  calls: { toolName: string; input: Record<string, unknown> }[];
  outputs: Record<string, unknown>[];
  answer: string;
}

/** A listed product, as the shopper saw it; read under either field naming the gateway may return. */
interface Shown {
  productId: string;
  productName: string;
  brand: string;
  /** USD cents. */
  price: number;
  colors: string[];
}

function shownOf(product: Record<string, unknown>): Shown {
  return {
    productId: String(product.productId ?? product.id),
    productName: String(product.productName ?? product.name),
    brand: String(product.brand),
    price: Number(product.priceCents ?? product.price),
    colors: (product.colors as string[] | undefined) ?? [],
  };
}

const outputsOf = (chunks: UIMessageChunk[]) =>
  chunks.flatMap((chunk) =>
    chunk.type === 'tool-output-available' ? [chunk.output as Record<string, unknown>] : [],
  );

const at = <T>(list: readonly T[], index: number): T => {
  const found = list.at(index);
  if (found === undefined) throw new Error(`nothing at ${index} of ${list.length}`);
  return found;
};

const dollars = (cents: number) => cents / 100;

describe.each(models)('a shopping conversation with $name, through POST /api/chat', ({ make }) => {
  // Sixteen requests in a row, each a model and tool loop: more than the default 30 s on a loaded machine.
  it(
    'keeps the topic, resolves references across empty turns and talks about the cart both ways',
    { timeout: 180_000 },
    async () => {
      model.current = make();
      const client = new TestClient(stack.url);
      await client.onboard(`${randomUUID().slice(0, 8)}@example.com`);
      let sessionId: string | undefined;

      const say = async (says: string): Promise<Turn> => {
        const reply = await chat(client, { ...(sessionId && { sessionId }), messages: [userMessage(says)] });
        expect(reply.status).toBe(200);
        sessionId = reply.headers.get('x-session-id') ?? undefined;
        return {
          calls: toolCallsOf(reply.chunks) as Turn['calls'],
          outputs: outputsOf(reply.chunks),
          answer: textOf(reply.message),
        };
      };
      const searched = (turn: Turn) =>
        (at(turn.outputs, 0).products as Record<string, unknown>[]).map(shownOf);

      // 1. Greeting and filler stay out of the query.
      const jackets = await say('hi! I am looking for a warm winter jacket');
      expect(jackets.calls).toEqual([
        { toolName: 'searchProducts', input: { query: 'warm winter jacket', limit: 5 } },
      ]);
      expect(searched(jackets).length).toBeGreaterThan(0);
      expect(jackets.answer).toContain(at(searched(jackets), 0).productName);

      // 2. "cheaper, under $80" keeps jackets and sets the limit the shopper said.
      const cheaper = await say('something cheaper, under $80?');
      expect(cheaper.calls).toEqual([
        { toolName: 'searchProducts', input: { query: 'warm winter jacket', maxPrice: 80, limit: 5 } },
      ]);
      expect(searched(cheaper).length).toBeGreaterThan(1);
      for (const product of searched(cheaper)) {
        expect(product.productName).toMatch(/jacket/i);
        expect(product.price).toBeLessThanOrEqual(8000);
      }

      // 3. A size narrows the same search.
      const sized = await say('in size L');
      expect(sized.calls).toEqual([
        {
          toolName: 'searchProducts',
          input: { query: 'warm winter jacket', maxPrice: 80, size: 'L', limit: 5 },
        },
      ]);
      const listed = searched(sized);
      expect(listed.length).toBeGreaterThan(1);

      // 4. A colour none of them has: nothing found, and a broader search offered.
      const blue = await say('any in blue?');
      expect(blue.calls).toEqual([
        {
          toolName: 'searchProducts',
          input: { query: 'warm winter jacket', maxPrice: 80, size: 'L', color: 'blue', limit: 5 },
        },
      ]);
      expect(searched(blue)).toEqual([]);
      expect(blue.answer).toMatch(/without the color/);

      // 5. "the second one" is the second of the listing before the empty one.
      const second = at(listed, 1);
      const details = await say('tell me more about the second one');
      expect(details.calls).toEqual([
        { toolName: 'getProductDetails', input: { productId: second.productId } },
      ]);
      expect(details.answer).toContain(second.productName);

      // 6. "it" is that jacket; black when it has black, else the nearest colour, said so.
      const added = await say('add it in size L, black if possible');
      const hasBlack = second.colors.includes('Black');
      expect(added.calls).toEqual([
        {
          toolName: 'addToCart',
          input: expect.objectContaining({
            productId: second.productId,
            size: 'L',
            color: hasBlack ? 'Black' : expect.any(String),
          }),
        },
      ]);
      const jacket = at(added.outputs, 0).item as CartItem;
      expect(jacket).toMatchObject({ productId: second.productId, size: 'L' });
      expect(added.answer).toContain(second.productName);
      if (!hasBlack) expect(added.answer).toMatch(new RegExp(`doesn't come in black.*${jacket.color}`));

      // 7. The cart, in words.
      const cart = await say("what's in my cart?");
      expect(cart.calls).toEqual([{ toolName: 'viewCart', input: {} }]);
      expect(cart.answer).toContain(second.productName);

      // 8. A gift maps to what the person likes.
      const coffee = await say('also find me a gift for my dad who likes coffee');
      expect(coffee.calls).toEqual([{ toolName: 'searchProducts', input: { query: 'coffee', limit: 5 } }]);
      const coffeeThings = searched(coffee);
      expect(coffeeThings.length).toBeGreaterThan(1);
      for (const product of coffeeThings) expect(product.productName).toMatch(/coffee/i);

      // 9. "cheaper" alone means below the prices just shown: nothing is, and the answer offers more.
      const cheapest = Math.min(...coffeeThings.map(({ price }) => price));
      const lower = await say('anything cheaper?');
      expect(lower.calls).toEqual([
        {
          toolName: 'searchProducts',
          input: { query: 'coffee', maxPrice: dollars(cheapest - 1), limit: 5 },
        },
      ]);
      expect(searched(lower)).toEqual([]);
      expect(lower.answer).toMatch(/Want me to search again without the price limit\?$/);

      // 10. "more like the first one" points past that empty turn, and searches that product's kind.
      const first = at(coffeeThings, 0);
      const similar = await say('more like the first one');
      expect(similar.calls).toEqual([
        {
          toolName: 'searchProducts',
          input: { query: first.productName.slice(first.brand.length).trim().toLowerCase(), limit: 5 },
        },
      ]);
      const mugs = searched(similar);
      expect(mugs.length).toBeGreaterThan(1);
      for (const product of mugs) expect(product.productName).toMatch(/mug/i);

      // 11. An ordinal again points into the latest listing (a colour named: the mug comes in several).
      const mug = at(mugs, 0);
      const mugColor = mug.colors && mug.colors.length > 1 ? ` in ${mug.colors[0]!.toLowerCase()}` : '';
      const addMug = await say(`add the first one${mugColor}`);
      expect(addMug.calls).toEqual([
        { toolName: 'addToCart', input: expect.objectContaining({ productId: mug.productId }) },
      ]);
      const mugItem = at(addMug.outputs, 0).item as CartItem;

      // 12. "the jacket" in cart talk is the jacket item.
      const removed = await say('remove the jacket from my cart');
      expect(removed.calls).toEqual([{ toolName: 'removeFromCart', input: { itemId: jacket.id } }]);
      expect(removed.answer).toBe(`Removed ${second.productName} from your cart.`);

      // 13. Asked again: the cart no longer has a jacket, and says what it has.
      const again = await say('remove the jacket');
      expect(again.calls.map(({ toolName }) => toolName)).toEqual(['viewCart']);
      expect(again.answer).toContain(`There's no jacket in your cart. It has:\n\n- ${mug.productName}`);

      // 14. Emptying the cart removes what the conversation knows is in it.
      const emptied = await say('empty my cart');
      expect(emptied.calls).toEqual([{ toolName: 'removeFromCart', input: { itemId: mugItem.id } }]);

      // 15. An empty cart is said in words, never as an empty list.
      const nothing = await say('remove the mug');
      expect(nothing.calls.map(({ toolName }) => toolName)).toEqual(['viewCart']);
      expect(nothing.answer).toBe('Your cart is empty, so there is nothing to remove.');

      const thanks = await say('thanks!');
      expect(thanks.calls).toEqual([]);
      expect(thanks.answer).toMatch(/welcome/);

      expect((await client.request('GET', '/api/cart')).json.items).toEqual([]);
    },
  );
});
