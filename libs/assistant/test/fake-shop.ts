import type { LanguageModelV3 } from '@ai-sdk/provider';
import { rankMemories } from '@shop/memory';
import { MockProductSearch, type ProductSummary } from '@shop/product-search';
import { stepCountIs, streamText, tool, type ModelMessage, type TextStreamPart, type ToolSet } from 'ai';
import {
  addToCartOutput,
  buildSystemPrompt,
  checkoutOutput,
  compareProductsOutput,
  getOrdersOutput,
  getProductDetailsOutput,
  OfflineChatModel,
  productQueryOf,
  recallMemoriesOutput,
  rememberMemoryOutput,
  removeFromCartOutput,
  searchProductsOutput,
  SHOPPING_TOOLS,
  toolFailed,
  viewCartOutput,
  type CartItemView,
  type OrderRecord,
} from '../src';

/** A refusal as the gateway's tools answer it: a result, not a thrown error. */
const itemNotFound = () => toolFailed('CartItemNotFoundError', 'Cart item not found');

export interface FakeShopOptions {
  /** USDC in the shopper's wallet, in cents: a checkout of a dearer item is refused as the gateway does. */
  walletCents?: number;
}

/**
 * The gateway's tools as the tests run them: search and details over the mock catalogue, a cart and
 * orders in memory with predictable ids, so a whole conversation is reproducible. Memories and orders
 * outlive a conversation, as they do for a shopper who opens a new chat.
 */
export function createFakeShop(initialCart: CartItemView[] = [], options: FakeShopOptions = {}) {
  const products = new MockProductSearch();
  const cart = [...initialCart];
  const remembered: string[] = [];
  const orders: OrderRecord[] = [];
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
        const item = cart.find(({ id }) => id === cartItemId);
        if (!item) return itemNotFound();
        if (options.walletCents !== undefined && item.price > options.walletCents)
          return toolFailed('InsufficientFundsError', 'Your wallet holds too little USDC for this item');
        const order = {
          orderId: nextId(),
          providerOrderId: `prov-order-${orders.length + 1}`,
          phase: 'awaiting-approval',
          walletAddress: '0x00000000000000000000000000000000000000aa',
        };
        const { id: _id, createdAt: _at, ...snapshot } = item;
        const placedAt = '2026-01-02T00:00:00.000Z';
        orders.unshift({
          orderId: order.orderId,
          providerOrderId: order.providerOrderId,
          type: 'checkout',
          phase: order.phase,
          status: 'awaiting_approval',
          item: snapshot,
          payment: null,
          quote: null,
          timeline: [{ status: 'awaiting_approval', at: placedAt }],
          tx_hash: null,
          createdAt: placedAt,
          agent: null,
        });
        return checkoutOutput(order);
      },
    }),
    rememberMemory: tool({
      ...SHOPPING_TOOLS.rememberMemory,
      execute: async ({ fact }) => {
        remembered.push(fact);
        return rememberMemoryOutput(fact);
      },
    }),
    getOrders: tool({
      ...SHOPPING_TOOLS.getOrders,
      execute: async ({ orderId, type, status, limit = 5 }) => {
        if (orderId !== undefined) {
          const order = orders.find((each) => each.orderId === orderId);
          if (!order) return toolFailed('OrderNotFoundError', 'No such order');
          return getOrdersOutput({ orders: [order], total: 1, page: 1, limit: 1 });
        }
        const matching = orders.filter(
          (order) =>
            (type === undefined || order.type === type) && (status === undefined || order.status === status),
        );
        return getOrdersOutput({ orders: matching.slice(0, limit), total: matching.length, page: 1, limit });
      },
    }),
    compareProducts: tool({
      ...SHOPPING_TOOLS.compareProducts,
      execute: async ({ productIds }) => {
        const found = await Promise.all(productIds.map((id) => products.product(id)));
        const missing = productIds.filter((_, index) => found[index] === null);
        if (missing.length > 0)
          return toolFailed('PRODUCT_NOT_FOUND', `No product with id ${missing.join(', ')}`);
        return compareProductsOutput(found as ProductSummary[]);
      },
    }),
    recallMemories: tool({
      ...SHOPPING_TOOLS.recallMemories,
      execute: async ({ question }) => {
        const memories = remembered.map((content, index) => ({
          id: String(index),
          content,
          namespace: 'preferences',
          source: 'chat',
          createdAt: `2026-01-01T00:00:${String(index).padStart(2, '0')}.000Z`,
        }));
        return recallMemoriesOutput(rankMemories(question, memories).slice(0, 5));
      },
    }),
  };
  return { tools, cart, remembered, orders };
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
