import type { LanguageModelV3 } from '@ai-sdk/provider';
import { MockProductSearch } from '@shop/product-search';
import { stepCountIs, streamText, tool, type ModelMessage, type TextStreamPart, type ToolSet } from 'ai';
import {
  addToCartOutput,
  buildSystemPrompt,
  checkoutOutput,
  getProductDetailsOutput,
  OfflineChatModel,
  productQueryOf,
  rememberMemoryOutput,
  removeFromCartOutput,
  searchProductsOutput,
  SHOPPING_TOOLS,
  toolFailed,
  viewCartOutput,
  type CartItemView,
} from '../src';

/** A refusal as the gateway's tools answer it: a result, not a thrown error. */
const itemNotFound = () => toolFailed('CartItemNotFoundError', 'Cart item not found');

/**
 * The gateway's tools as the tests run them: search and details over the mock catalogue, a cart and
 * orders in memory with predictable ids, so a whole conversation is reproducible.
 */
export function createFakeShop(initialCart: CartItemView[] = []) {
  const products = new MockProductSearch();
  const cart = [...initialCart];
  const remembered: string[] = [];
  let sequence = 0;
  const nextId = () => `00000000-0000-4000-8000-${String(++sequence).padStart(12, '0')}`;

  const tools = {
    searchProducts: tool({
      ...SHOPPING_TOOLS.searchProducts,
      execute: async (input) => searchProductsOutput(await products.search(productQueryOf(input))),
    }),
    getProductDetails: tool({
      ...SHOPPING_TOOLS.getProductDetails,
      execute: async ({ productId }) => getProductDetailsOutput(productId, await products.product(productId)),
    }),
    viewCart: tool({ ...SHOPPING_TOOLS.viewCart, execute: async () => viewCartOutput(cart) }),
    addToCart: tool({
      ...SHOPPING_TOOLS.addToCart,
      execute: async (input) => {
        const item: CartItemView = {
          ...input,
          id: nextId(),
          size: input.size ?? 'Default',
          color: input.color ?? 'Default',
          createdAt: '2026-01-01T00:00:00.000Z',
        };
        cart.push(item);
        return addToCartOutput(item);
      },
    }),
    removeFromCart: tool({
      ...SHOPPING_TOOLS.removeFromCart,
      execute: async ({ itemId }) => {
        const index = cart.findIndex(({ id }) => id === itemId);
        if (index < 0) return itemNotFound();
        cart.splice(index, 1);
        return removeFromCartOutput(itemId);
      },
    }),
    checkout: tool({
      ...SHOPPING_TOOLS.checkout,
      execute: async ({ cartItemId }) => {
        if (!cart.some(({ id }) => id === cartItemId)) return itemNotFound();
        return checkoutOutput({
          orderId: nextId(),
          providerOrderId: 'prov-order-1',
          phase: 'awaiting-approval',
          walletAddress: '0x00000000000000000000000000000000000000aa',
        });
      },
    }),
    rememberMemory: tool({
      ...SHOPPING_TOOLS.rememberMemory,
      execute: async ({ fact }) => {
        remembered.push(fact);
        return rememberMemoryOutput(fact);
      },
    }),
  };
  return { tools, cart, remembered };
}

export type FakeShop = ReturnType<typeof createFakeShop>;

export interface Turn {
  text: string;
  toolCalls: { toolName: string; input: unknown }[];
  /** Every tool output the turn produced, in order. */
  outputs: unknown[];
  parts: TextStreamPart<ToolSet>[];
  /** The conversation including this turn, to continue from. */
  messages: ModelMessage[];
}

/** One chat request through the real SDK tool loop, as the gateway will run it. */
export async function runTurn(
  shop: { tools: ToolSet },
  history: ModelMessage[],
  userText: string,
  preferences: string[] = [],
  model: LanguageModelV3 = new OfflineChatModel(),
): Promise<Turn> {
  const messages: ModelMessage[] = [...history, { role: 'user', content: userText }];
  const result = streamText({
    model,
    system: buildSystemPrompt({ preferences }),
    messages,
    tools: shop.tools,
    stopWhen: stepCountIs(5),
  });
  const parts: TextStreamPart<ToolSet>[] = [];
  for await (const part of result.fullStream) parts.push(part);
  const steps = await result.steps;
  return {
    text: await result.text,
    toolCalls: steps.flatMap((step) => step.toolCalls.map(({ toolName, input }) => ({ toolName, input }))),
    outputs: steps.flatMap((step) => step.toolResults.map(({ output }) => output)),
    parts,
    messages: [...messages, ...(await result.response).messages],
  };
}

/** Runs the user messages one after another and returns every turn. */
export async function converse(
  shop: FakeShop,
  userTexts: string[],
  model: LanguageModelV3 = new OfflineChatModel(),
): Promise<Turn[]> {
  const turns: Turn[] = [];
  let history: ModelMessage[] = [];
  for (const text of userTexts) {
    const turn = await runTurn(shop, history, text, [], model);
    turns.push(turn);
    history = turn.messages;
  }
  return turns;
}
