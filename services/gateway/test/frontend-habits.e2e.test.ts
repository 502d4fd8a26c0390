import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OfflineChatModel } from '@shop/assistant';
import { scriptedModel, SwitchableModel, userMessage } from './chat-harness';
import { FrontendBrowser, signInLikeTheFrontend } from './frontend-browser';
import { readChatLikeTheFrontend } from './frontend-chat-reader';
import { eventually, startTestStack, TestStack } from './stack';

/**
 * The existing frontend's calls, made with its habits: it runs on another origin and sends
 * `credentials: 'include'` on every call, it posts `email` with every JWT exchange, it adds to
 * the cart with `size: ''` and `color: ''` when the shopper picked none, and it reads the chat
 * stream with its own reader (frontend-chat-reader.ts).
 */
const model = new SwitchableModel();
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('frontendhabits', {}, { chatModel: model });
});
afterAll(() => stack?.stop());
afterEach(() => {
  model.current = new OfflineChatModel();
});

const signIn = (browser: FrontendBrowser, options?: { onboard?: boolean }) =>
  signInLikeTheFrontend(browser, stack.provider, options);

const product = (n: number) => ({
  productId: `B0FRONT${String(n).padStart(3, '0')}`,
  productName: `Linen shirt ${n}`,
  price: 4599,
  image: `https://images.example.com/front-${n}.jpg`,
  productUrl: `https://shop.example.com/dp/front-${n}`,
  retailer: 'Example Outfitters',
});
/** What the frontend's product card posts when the shopper picked no size or colour. */
const addedFromCard = (n: number) => ({ ...product(n), size: '', color: '' });

describe("the frontend's calls, with its habits", () => {
  it('signs in with the email in every session body, reads the profile and onboards, all with credentials', async () => {
    const browser = new FrontendBrowser(stack.url);
    const { email, issued } = await signIn(browser, { onboard: false });
    expect(browser.cookie('provider-jwt')).toBe(issued.jwt);
    expect(decodeURIComponent(browser.cookie('user-email') ?? '')).toBe(email);

    const profile = await browser.call('GET', '/api/auth/profile');
    expect(profile.status).toBe(200);
    expect(profile.json).toMatchObject({ email, onboardingStep: 0, userId: expect.any(String) });

    // A reload signs in again, the refresh token and the same email in the body: the same user.
    const again = await browser.call('POST', '/api/auth/session', {
      jwt: issued.jwt,
      refreshToken: issued.refresh.secret,
      email,
    });
    expect([again.status, again.json]).toEqual([200, { success: true }]);
    expect((await browser.call('GET', '/api/auth/profile')).json.userId).toBe(profile.json.userId);

    expect((await browser.call('GET', '/api/onboarding/status')).json).toEqual({ step: 0, completed: false });
    await browser.call('POST', '/api/onboarding/step-1', { displayName: 'Ada' });
    await browser.call('POST', '/api/onboarding/step-2', {
      firstName: 'Ada',
      lastName: 'Lovelace',
      street: '1 Main Street',
      country: 'GB',
      city: 'London',
      zip: 'N1 9GU',
    });
    const sizes = await browser.call('POST', '/api/onboarding/step-3', {
      topsSize: 'S',
      bottomsSize: '30',
      footwearSize: '40',
    });
    expect([sizes.status, sizes.json]).toEqual([200, { success: true, step: 3 }]);
    expect((await browser.call('GET', '/api/onboarding/status')).json).toEqual({ step: 3, completed: true });
    expect((await browser.call('GET', '/api/auth/profile')).json.onboardingStep).toBe(3);

    expect((await browser.call('POST', '/api/auth/logout')).json).toEqual({ success: true });
    expect(browser.cookie('provider-jwt')).toBeUndefined();
    expect((await browser.call('GET', '/api/auth/profile')).status).toBe(401);
  });

  it("stores the cart's empty size and colour as Default, in the answer, the list and the stream", async () => {
    const browser = new FrontendBrowser(stack.url);
    await signIn(browser);
    const userId = (await browser.call('GET', '/api/auth/profile')).json.userId as string;

    const added = await browser.call('POST', '/api/cart', addedFromCard(1));
    expect(added.status).toBe(201);
    expect(added.json).toMatchObject({ ...product(1), size: 'Default', color: 'Default', userId });

    // Picking nothing twice is the same choice: the item is already in the cart.
    const twice = await browser.call('POST', '/api/cart', addedFromCard(1));
    expect([twice.status, twice.json.code]).toEqual([409, 'CartDuplicateItemError']);
    const sized = await browser.call('POST', '/api/cart', { ...addedFromCard(1), size: 'M' });
    expect([sized.status, sized.json.size, sized.json.color]).toEqual([201, 'M', 'Default']);

    const listed = await browser.call('GET', '/api/cart');
    expect(listed.status).toBe(200);
    expect(
      (listed.json.items as { id: string; size: string; color: string }[])
        .map(({ id, size, color }) => ({ id, size, color }))
        .sort((a, b) => a.size.localeCompare(b.size)),
    ).toEqual([
      { id: added.json.id, size: 'Default', color: 'Default' },
      { id: sized.json.id, size: 'M', color: 'Default' },
    ]);
    const { events } = await stack.store.load('cart', userId);
    expect(
      events
        .filter((event) => event.type === 'ItemAdded')
        .map((event) => (event.data as { size: string }).size),
    ).toEqual(['Default', 'M']);

    const removed = await browser.call('DELETE', `/api/cart/${added.json.id as string}`);
    expect(removed.status).toBe(204);
    expect(
      ((await browser.call('GET', '/api/cart')).json.items as { id: string }[]).map((i) => i.id),
    ).toEqual([sized.json.id]);
  });

  it("chats, reads the stream with the frontend's reader, and finds the exchange in its sessions", async () => {
    const browser = new FrontendBrowser(stack.url);
    await signIn(browser);

    const response = await browser.fetch('/api/chat', {
      method: 'POST',
      body: { messages: [userMessage('show me red running shoes under $120')] },
    });
    expect(response.status).toBe(200);
    const sessionId = browser.exposed(response, 'x-session-id');
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const view = await readChatLikeTheFrontend(response.body!);

    expect(view.done).toBe(true);
    expect(view.errors).toEqual([]);
    expect(view.finishReason).toBe('stop');
    expect(view.text.length).toBeGreaterThan(0);
    expect(view.toolCalls).toEqual([
      {
        toolCallId: expect.any(String),
        toolName: 'searchProducts',
        args: expect.objectContaining({ query: expect.any(String) }),
      },
    ]);
    const found = view.toolResults.get(view.toolCalls[0]!.toolCallId) as { products: unknown[] } | undefined;
    expect(found?.products.length).toBeGreaterThan(0);
    expect(view.dataParts.length).toBeGreaterThan(0);
    for (const part of view.dataParts) {
      expect(part).toMatchObject({ type: 'data-memwal-activity', data: { status: expect.any(String) } });
    }

    const sessions = await browser.call('GET', '/api/sessions');
    expect(sessions.status).toBe(200);
    expect((sessions.json.sessions as { id: string }[]).map((s) => s.id)).toContain(sessionId);
    const stored = await browser.call('GET', `/api/sessions/${sessionId}`);
    expect(stored.status).toBe(200);
    const messages = stored.json.messages as { role: string; parts: Record<string, unknown>[] }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const reply = messages[1]!.parts;
    expect(
      reply
        .filter((p) => p.type === 'text')
        .map((p) => p.text)
        .join(''),
    ).toBe(view.text);
    expect(reply.some((p) => p.toolCallId === view.toolCalls[0]!.toolCallId)).toBe(true);

    const next = await browser.fetch('/api/chat', {
      method: 'POST',
      body: { sessionId, messages: [userMessage('thanks')] },
    });
    expect(browser.exposed(next, 'x-session-id')).toBe(sessionId);
    expect((await readChatLikeTheFrontend(next.body!)).done).toBe(true);
  });

  it("shows a failure after the stream started as the error chunk's errorText, and the stream still ends", async () => {
    const browser = new FrontendBrowser(stack.url);
    await signIn(browser);
    model.current = scriptedModel([
      [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: 'Let me ' },
        { type: 'error', error: new Error('upstream model crashed') },
      ],
    ]);
    const response = await browser.fetch('/api/chat', {
      method: 'POST',
      body: { messages: [userMessage('show me hats')] },
    });
    const view = await readChatLikeTheFrontend(response.body!);
    expect(view.text).toBe('Let me ');
    expect(view.errors).toEqual(['The assistant could not answer; please try again.']);
    expect(view.done).toBe(true);
  });

  it('checks out an item added without size or colour, and finds the order in its orders', async () => {
    const browser = new FrontendBrowser(stack.url);
    await signIn(browser);
    const profile = await eventually(
      () => browser.call('GET', '/api/auth/profile'),
      (answer) => answer.json.walletStatus === 'active',
    );
    expect(profile.json.walletStatus).toBe('active');
    stack.provider.fund(profile.json.evmAddress as string, '500');

    const item = await browser.call('POST', '/api/cart', addedFromCard(2));
    const checkout = await browser.call('POST', '/api/checkout', { cartItemId: item.json.id });
    expect(checkout.status).toBe(201);
    expect(checkout.json).toEqual({
      orderId: expect.any(String),
      providerOrderId: expect.any(String),
      crossmintOrderId: checkout.json.providerOrderId,
      phase: expect.any(String),
      serializedTransaction: expect.any(String),
      walletAddress: profile.json.evmAddress,
    });

    const orders = await browser.call('GET', '/api/orders');
    expect(orders.status).toBe(200);
    expect(orders.json).toMatchObject({ total: 1, page: 1, limit: 20 });
    const [listed] = orders.json.orders as Record<string, unknown>[];
    expect(listed).toMatchObject({
      orderId: checkout.json.orderId,
      type: 'checkout',
      status: 'awaiting_approval',
      item: { ...product(2), size: 'Default', color: 'Default' },
    });
    const order = await browser.call('GET', `/api/orders/${checkout.json.orderId as string}`);
    expect([order.status, order.json.orderId]).toEqual([200, checkout.json.orderId]);
  });
});
