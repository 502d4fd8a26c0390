import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { UIMessage, UIMessageChunk } from 'ai';
import { createChatModel, OFFLINE_MODEL_ID, OfflineChatModel } from '@shop/assistant';
import { MockProductSearch, type ProductSummary } from '@shop/product-search';
import { startModelSandbox, type ModelSandbox } from '@shop/sandbox-model';
import {
  chat,
  scriptedModel,
  SwitchableModel,
  textOf,
  textStep,
  toolStep,
  userMessage,
} from './chat-harness';
import { readChatLikeTheFrontend } from './frontend-chat-reader';
import { eventually, startTestStack, TestClient, TestStack } from './stack';

/**
 * Every expected way a chat tool fails is a tool result with `success: false`, a stable code and a
 * message the shopper can read: the stream carries `tool-output-available` for it, never
 * `tool-output-error`, the session replays the same part, and both model paths tell the shopper.
 */
const model = new SwitchableModel();
let stack: TestStack;
let sandbox: ModelSandbox;
let hoodies: ProductSummary[];

beforeAll(async () => {
  sandbox = await startModelSandbox();
  stack = await startTestStack('chattoolfailures', {}, { chatModel: model });
  hoodies = (await new MockProductSearch().search({ query: 'hoodie', limit: 5 })).products;
});
afterAll(async () => {
  await stack?.stop();
  await sandbox?.close();
});
afterEach(() => {
  stack.provider.clearFaults();
  model.current = new OfflineChatModel();
});

const hoodie = (index: number, size = 'M') => {
  const { productId, productName, price, image, productUrl, retailer, colors } = hoodies[index]!;
  // A colour the hoodie comes in: the chat asks which one otherwise (issue 42's variant choice).
  return { productId, productName, price, image, productUrl, retailer, size, color: colors![0]! };
};

async function shopper(options: { funds?: string; wallet?: 'active' | 'failed' } = {}): Promise<TestClient> {
  const { funds = '0', wallet = 'active' } = options;
  if (wallet === 'failed') stack.provider.failNext('wallets.create', { status: 400 });
  const client = new TestClient(stack.url);
  await client.onboard(`${randomUUID().slice(0, 8)}@example.com`);
  const profile = await eventually(
    () => client.request('GET', '/api/auth/profile'),
    (res) => res.json.walletStatus === wallet,
  );
  expect(profile.json.walletStatus).toBe(wallet);
  if (funds !== '0') stack.provider.fund(profile.json.evmAddress as string, funds);
  return client;
}

async function cartItem(client: TestClient, body = hoodie(0)): Promise<string> {
  const added = await client.request('POST', '/api/cart', body);
  expect(added.status).toBe(201);
  return added.json.id as string;
}

type ToolPart = { type: string; toolCallId: string; state: string; output?: unknown };
const toolPartsOf = (parts: readonly { type: string }[]) =>
  parts
    .filter((part) => part.type.startsWith('tool-') || part.type === 'dynamic-tool')
    .map((part) => {
      const { type, toolCallId, state, output } = part as ToolPart;
      return { type, toolCallId, state, output };
    });

const outputsOf = (chunks: UIMessageChunk[]) =>
  chunks.flatMap((chunk) => (chunk.type === 'tool-output-available' ? [chunk.output] : []));

/** The session as a reload reads it: the reply's tool parts are the ones the stream built. */
async function expectReplayed(client: TestClient, sessionId: string, message: UIMessage | undefined) {
  const session = await client.request('GET', `/api/sessions/${sessionId}`);
  const stored = (session.json.messages as { role: string; parts: { type: string }[] }[]).at(-1)!;
  expect(stored.role).toBe('assistant');
  expect(toolPartsOf(stored.parts)).toEqual(toolPartsOf(message?.parts ?? []));
}

/**
 * One scripted turn that makes `call` and then answers: its result is `failure`, as a
 * `tool-output-available` chunk, with no `tool-output-error` anywhere; and the session replays it.
 */
async function expectFailureResult(
  client: TestClient,
  call: { toolName: string; input: unknown },
  failure: { code: string; message: string; extra?: Record<string, unknown> },
) {
  model.current = scriptedModel([toolStep([call]), textStep('Sorry about that.')]);
  const reply = await chat(client, { messages: [userMessage('do it')] });
  expect(reply.status).toBe(200);
  expect(reply.chunks.filter((chunk) => chunk.type === 'tool-output-error')).toEqual([]);
  const output = reply.chunks.find((chunk) => chunk.type === 'tool-output-available');
  expect(output).toEqual({
    type: 'tool-output-available',
    toolCallId: 'call-1',
    output: {
      ...failure.extra,
      success: false,
      code: failure.code,
      message: failure.message,
    },
  });
  // The existing frontend replaces its placeholder card with the result: none is left pulsing.
  const view = await readChatLikeTheFrontend(new Response(reply.text).body!);
  expect(view.toolCalls.map(({ toolCallId }) => view.toolResults.has(toolCallId))).toEqual([true]);
  expect(reply.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
  await expectReplayed(client, reply.headers.get('x-session-id')!, reply.message);
  return reply;
}

describe('a failed tool answers a result, not an error', () => {
  it('cart full', async () => {
    const client = await shopper();
    for (let n = 0; n < 10; n++) await cartItem(client, hoodie(0, `S${n}`));
    await expectFailureResult(
      client,
      { toolName: 'addToCart', input: hoodie(1) },
      { code: 'CartFullError', message: 'The cart already holds 10 items' },
    );
    expect((await client.request('GET', '/api/cart')).json.items).toHaveLength(10);
  });

  it('duplicate item', async () => {
    const client = await shopper();
    await cartItem(client, hoodie(1));
    await expectFailureResult(
      client,
      { toolName: 'addToCart', input: hoodie(1) },
      { code: 'CartDuplicateItemError', message: 'The same product, size and color is already in the cart' },
    );
  });

  it('cart item not found, for removal and for checkout', async () => {
    const client = await shopper({ funds: '500' });
    const notFound = { code: 'CartItemNotFoundError', message: 'No such item in your cart' };
    await expectFailureResult(
      client,
      { toolName: 'removeFromCart', input: { itemId: randomUUID() } },
      notFound,
    );
    await expectFailureResult(
      client,
      { toolName: 'checkout', input: { cartItemId: randomUUID() } },
      notFound,
    );
  });

  it('not onboarded for payment: no wallet', async () => {
    const client = await shopper({ wallet: 'failed' });
    const itemId = await cartItem(client);
    await expectFailureResult(
      client,
      { toolName: 'checkout', input: { cartItemId: itemId } },
      { code: 'CheckoutNoWalletError', message: 'Your EVM wallet is not provisioned yet' },
    );
  });

  it('insufficient funds', async () => {
    const client = await shopper({ funds: '0' });
    const itemId = await cartItem(client);
    await expectFailureResult(
      client,
      { toolName: 'checkout', input: { cartItemId: itemId } },
      { code: 'InsufficientFundsError', message: 'Your wallet holds too little USDC for this item' },
    );
  });

  it("the payment provider's refusal", async () => {
    const client = await shopper({ funds: '500' });
    const itemId = await cartItem(client);
    stack.provider.failNext('orders.create', { times: 10, status: 400 });
    await expectFailureResult(
      client,
      { toolName: 'checkout', input: { cartItemId: itemId } },
      {
        code: 'CheckoutOrderCreationError',
        message: 'The payment provider could not create the order right now; please try again later',
      },
    );
  });

  it('product not found', async () => {
    const client = await shopper();
    const reply = await expectFailureResult(
      client,
      { toolName: 'getProductDetails', input: { productId: 'B0NOSUCH00' } },
      {
        code: 'PRODUCT_NOT_FOUND',
        message: 'That product is no longer available.',
        extra: { productId: 'B0NOSUCH00' },
      },
    );
    // The frontend shows no product card for it: the result has no `id`.
    expect(outputsOf(reply.chunks)[0]).not.toHaveProperty('id');
  });

  it('a call the SDK cannot run (input that fails the schema) answers a failure result too', async () => {
    const client = await shopper();
    model.current = scriptedModel([
      toolStep([{ toolName: 'addToCart', input: { productId: 'B0NOSUCH00' } }]),
      textStep('Sorry about that.'),
    ]);
    const reply = await chat(client, { messages: [userMessage('add it')] });
    expect(reply.chunks.filter((chunk) => chunk.type === 'tool-output-error')).toEqual([]);
    expect(reply.chunks.find((chunk) => chunk.type === 'tool-output-available')).toEqual({
      type: 'tool-output-available',
      toolCallId: 'call-1',
      output: { success: false, code: 'VALIDATION_ERROR', message: expect.any(String) },
    });
    await expectReplayed(client, reply.headers.get('x-session-id')!, reply.message);
    expect((await client.request('GET', '/api/cart')).json.items).toEqual([]);
  });
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

describe.each(models)('$name tells the shopper what happened', ({ make }) => {
  it('when the checkout is refused for want of funds', async () => {
    const client = await shopper({ funds: '0' });
    const itemId = await cartItem(client, hoodie(2));
    model.current = make();
    const reply = await chat(client, { messages: [userMessage('check out the hoodie')] });

    expect(reply.chunks.filter((chunk) => chunk.type === 'tool-output-error')).toEqual([]);
    expect(outputsOf(reply.chunks).at(-1)).toEqual({
      success: false,
      code: 'InsufficientFundsError',
      message: 'Your wallet holds too little USDC for this item',
    });
    // With the next step after a failure (issue 43).
    expect(textOf(reply.message)).toBe(
      "Sorry, I couldn't start the checkout: Your wallet holds too little USDC for this item. Fund your wallet with USDC (a deposit), then ask me to check out again.",
    );
    expect((await client.request('GET', '/api/cart')).json.items).toEqual([
      expect.objectContaining({ id: itemId }),
    ]);
    await expectReplayed(client, reply.headers.get('x-session-id')!, reply.message);
  });

  it('when the cart is full', async () => {
    const client = await shopper();
    for (let n = 0; n < 10; n++) await cartItem(client, hoodie(0, `S${n}`));
    model.current = make();
    const search = await chat(client, { messages: [userMessage('show me hoodies', 'u-1')] });
    const sessionId = search.headers.get('x-session-id')!;
    const [{ products }] = outputsOf(search.chunks) as [{ products: { colors: string[] }[] }];
    const color = products[1]!.colors[0]!.toLowerCase();
    const add = await chat(client, {
      sessionId,
      messages: [userMessage(`add the second one in M in ${color}`, 'u-2')],
    });

    expect(add.chunks.filter((chunk) => chunk.type === 'tool-output-error')).toEqual([]);
    expect(outputsOf(add.chunks)).toEqual([
      { success: false, code: 'CartFullError', message: 'The cart already holds 10 items' },
    ]);
    expect(textOf(add.message)).toBe(
      'Sorry, I couldn\'t add it to your cart: The cart already holds 10 items. Remove an item first, for example "remove the first item", then try again.',
    );
    await expectReplayed(client, sessionId, add.message);
  });
});
