import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFFLINE_MODEL_ID } from '@shop/assistant';
import { startModelSandbox, type ModelSandbox } from '@shop/sandbox-model';
import { userMessage } from './chat-harness';
import { FrontendBrowser, signInLikeTheFrontend } from './frontend-browser';
import { readChatLikeTheFrontend, type FrontendChatView } from './frontend-chat-reader';
import {
  acceptCheckout,
  cartBodyOf,
  memoryResultsOf,
  productCardsOf,
  productToolResults,
  rawProductsOf,
  type FrontendProduct,
} from './frontend-shopping-rules';
import { eventually, startTestStack, TestStack } from './stack';

/**
 * The existing frontend's shopping, by the rules it reads at run time (frontend-shopping-rules.ts):
 * product cards from the chat's tool results, a card's add-to-cart body, and the checkout answer it
 * accepts. The gateway builds its chat model from its configuration, as in production: the
 * @ai-sdk/openai client against the OpenAI-compatible stand-in.
 */
let sandbox: ModelSandbox;
let stack: TestStack;

beforeAll(async () => {
  sandbox = await startModelSandbox();
  stack = await startTestStack('frontendshopping', {
    OPENAI_API_KEY: sandbox.apiKey,
    OPENAI_BASE_URL: sandbox.baseURL,
    CHAT_MODEL: OFFLINE_MODEL_ID,
  });
});
afterAll(async () => {
  await stack?.stop();
  await sandbox?.close();
});

async function signedIn(): Promise<FrontendBrowser> {
  const browser = new FrontendBrowser(stack.url);
  await signInLikeTheFrontend(browser, stack.provider);
  return browser;
}

async function chatTurn(
  browser: FrontendBrowser,
  text: string,
  sessionId?: string,
): Promise<{ view: FrontendChatView; sessionId: string }> {
  const asked = sandbox.requests().length;
  const response = await browser.fetch('/api/chat', {
    method: 'POST',
    body: { ...(sessionId !== undefined && { sessionId }), messages: [userMessage(text)] },
  });
  expect(response.status).toBe(200);
  const view = await readChatLikeTheFrontend(response.body!);
  expect([view.errors, view.done]).toEqual([[], true]);
  expect(sandbox.requests().length, 'the turn went through the stand-in').toBeGreaterThan(asked);
  return { view, sessionId: browser.exposed(response, 'x-session-id') ?? '' };
}

/** A card with everything the frontend shows and posts back. */
const fullCard = {
  id: expect.any(String),
  name: expect.any(String),
  price: expect.any(Number),
  currency: 'USD',
  imageUrl: expect.stringMatching(/^https?:\/\//),
  marketplace: expect.any(String),
  productUrl: expect.stringMatching(/^https?:\/\//),
  rating: expect.any(Number),
  reviewCount: expect.any(Number),
};

async function searchCards(browser: FrontendBrowser, text: string) {
  const { view, sessionId } = await chatTurn(browser, text);
  const results = productToolResults(view);
  expect(results.map(({ toolName }) => toolName)).toEqual(['searchProducts']);
  const { result } = results[0]!;
  const cards = productCardsOf(result);
  return { raw: rawProductsOf(result), cards, sessionId };
}

describe("the frontend's product cards, cart and checkout", () => {
  it('shows a card for every product a search returns, adds the first with its body and checks it out', async () => {
    const browser = await signedIn();
    const profile = await eventually(
      () => browser.call('GET', '/api/auth/profile'),
      (answer) => answer.json.walletStatus === 'active',
    );
    stack.provider.fund(profile.json.evmAddress as string, '500');

    const { raw, cards } = await searchCards(browser, 'show me running shoes under $120');
    expect(raw.length).toBeGreaterThan(0);
    expect(cards).toHaveLength(raw.length);
    for (const card of cards) {
      expect(card).toMatchObject(fullCard);
      // The card shows price / 100 dollars: the shopper's budget holds on what the card shows.
      expect(Number.isInteger(card.price)).toBe(true);
      expect(card.price! / 100).toBeLessThanOrEqual(120);
    }

    const first = cards[0] as FrontendProduct;
    const added = await browser.call('POST', '/api/cart', cartBodyOf(first));
    expect(added.status).toBe(201);
    expect(added.json).toMatchObject({
      productId: first.id,
      productName: first.name,
      price: first.price,
      image: first.imageUrl,
      productUrl: first.productUrl,
      retailer: first.marketplace,
      size: 'Default',
      color: 'Default',
    });

    const checkout = await browser.call('POST', '/api/checkout', { cartItemId: added.json.id });
    expect(checkout.status).toBe(201);
    expect(acceptCheckout(checkout.json)).toEqual({
      orderId: checkout.json.orderId,
      crossmintOrderId: checkout.json.providerOrderId,
    });
  });

  it("shows a product's details as one card, the product the search showed, and adds it", async () => {
    const browser = await signedIn();
    const search = await searchCards(browser, 'show me hoodies');
    expect(search.cards.length).toBeGreaterThan(1);

    const { view } = await chatTurn(browser, 'tell me more about the second one', search.sessionId);
    const results = productToolResults(view);
    expect(results.map(({ toolName }) => toolName)).toEqual(['getProductDetails']);
    const cards = productCardsOf(results[0]!.result);
    expect(cards).toEqual([search.cards[1]]);
    expect(cards[0]).toMatchObject(fullCard);

    const added = await browser.call('POST', '/api/cart', cartBodyOf(cards[0]!));
    expect([added.status, added.json.productId]).toEqual([201, search.cards[1]!.id]);
  });

  it('shows a memory stored card for a remembered preference', async () => {
    const browser = await signedIn();
    const { view } = await chatTurn(browser, 'remember that I prefer slim fit');
    expect(memoryResultsOf(view)).toEqual([
      { success: true, text: 'I prefer slim fit', message: expect.any(String) },
    ]);
  });
});
