import type {
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import {
  convertToModelMessages,
  readUIMessageStream,
  stepCountIs,
  streamText,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { describe, expect, it } from 'vitest';
import { OfflineChatModel, SHOPPING_TOOL_NAMES } from '../src';
import { createFakeShop } from './fake-shop';

const TOOLS: LanguageModelV3FunctionTool[] = SHOPPING_TOOL_NAMES.map((name) => ({
  type: 'function',
  name,
  inputSchema: { type: 'object' },
}));

const SEARCH_RESULT = {
  products: [
    {
      productId: 'B000000001',
      productName: 'Test Trail Hoodie',
      price: 4999,
      image: 'https://img.example/1.jpg',
      productUrl: 'https://shop.example/1',
      retailer: 'Test Retailer',
      brand: 'Testbrand',
      category: 'apparel',
      rating: 4.5,
      reviewCount: 12,
      sizes: ['S', 'M'],
      colors: ['Black'],
    },
  ],
  total: 1,
  page: 1,
  limit: 5,
  totalPage: 1,
};

const askForHoodies: LanguageModelV3Prompt = [
  { role: 'system', content: 'You are a shopping assistant.' },
  { role: 'user', content: [{ type: 'text', text: 'show me hoodies' }] },
];

const afterSearch: LanguageModelV3Prompt = [
  ...askForHoodies,
  {
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: 'call-1', toolName: 'searchProducts', input: { query: 'hoodies' } },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call-1',
        toolName: 'searchProducts',
        output: { type: 'json', value: SEARCH_RESULT },
      },
    ],
  },
];

async function partsOf(
  stream: ReadableStream<LanguageModelV3StreamPart>,
): Promise<LanguageModelV3StreamPart[]> {
  const parts: LanguageModelV3StreamPart[] = [];
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value);
  return parts;
}

describe('OfflineChatModel as a LanguageModelV3', () => {
  it('identifies itself as a v3 model', () => {
    const model = new OfflineChatModel();
    expect(model).toMatchObject({
      specificationVersion: 'v3',
      provider: 'offline',
      modelId: 'offline-shopping-assistant',
      supportedUrls: {},
    });
  });

  it('streams a tool call with its input as a JSON string and finishes with tool-calls', async () => {
    const { stream } = await new OfflineChatModel().doStream({ prompt: askForHoodies, tools: TOOLS });
    const parts = await partsOf(stream);
    expect(parts.map(({ type }) => type)).toEqual([
      'stream-start',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
      'tool-call',
      'finish',
    ]);
    const call = parts.find((part) => part.type === 'tool-call');
    expect(call).toMatchObject({ toolName: 'searchProducts', toolCallId: expect.stringMatching(/^call_/) });
    expect(JSON.parse((call as { input: string }).input)).toEqual({ query: 'hoodies', limit: 5 });
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: {
        inputTokens: { total: expect.any(Number), noCache: expect.any(Number), cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: expect.any(Number), text: expect.any(Number), reasoning: 0 },
      },
    });
  });

  it('answers a tool result with text built from it and finishes with stop', async () => {
    const { stream } = await new OfflineChatModel().doStream({ prompt: afterSearch, tools: TOOLS });
    const parts = await partsOf(stream);
    expect(parts[0]).toEqual({ type: 'stream-start', warnings: [] });
    expect(parts[1]).toMatchObject({ type: 'text-start' });
    expect(parts.at(-2)).toMatchObject({ type: 'text-end' });
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } });
    const deltas = parts.filter((part) => part.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(5);
    expect(new Set(parts.flatMap((part) => ('id' in part ? [part.id] : []))).size).toBe(1);
    expect(deltas.map(({ delta }) => delta).join('')).toMatch(
      /^I found 1 product for "hoodies":\n\n1\. Test Trail Hoodie - \$49\.99 \(Testbrand, rated 4\.5\/5, colors: Black\)/,
    );
  });

  it.each([
    [
      'a failure result',
      {
        type: 'json',
        value: { success: false, code: 'CartFullError', message: 'The cart already holds 10 items' },
      },
    ],
    [
      'an error the SDK made of a thrown tool',
      { type: 'error-text', value: 'The cart already holds 10 items' },
    ],
  ] as const)('tells the shopper what happened when a tool answers %s', async (_kind, output) => {
    const prompt: LanguageModelV3Prompt = [
      ...afterSearch,
      { role: 'user', content: [{ type: 'text', text: 'add the first one in M' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'call-2', toolName: 'addToCart', input: {} }],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'call-2', toolName: 'addToCart', output }],
      },
    ];
    const { content } = await new OfflineChatModel().doGenerate({ prompt, tools: TOOLS });
    // The next step after a failure is issue 43's.
    expect(content).toEqual([
      {
        type: 'text',
        text: 'Sorry, I couldn\'t add it to your cart: The cart already holds 10 items. Remove an item first, for example "remove the first item", then try again.',
      },
    ]);
  });

  it('says a product that is gone is gone when details answer PRODUCT_NOT_FOUND', async () => {
    const prompt: LanguageModelV3Prompt = [
      ...afterSearch,
      { role: 'user', content: [{ type: 'text', text: 'tell me more about the first one' }] },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'call-2',
            toolName: 'getProductDetails',
            input: { productId: 'B000000001' },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call-2',
            toolName: 'getProductDetails',
            output: {
              type: 'json',
              value: { success: false, code: 'PRODUCT_NOT_FOUND', message: 'gone', productId: 'B000000001' },
            },
          },
        ],
      },
    ];
    const { content } = await new OfflineChatModel().doGenerate({ prompt, tools: TOOLS });
    expect(content).toEqual([
      { type: 'text', text: "I couldn't find that product any more. Want me to search again?" },
    ]);
  });

  it('gives doGenerate the same content doStream streams', async () => {
    const model = new OfflineChatModel();
    const generated = await model.doGenerate({ prompt: afterSearch, tools: TOOLS });
    const streamed = await partsOf((await model.doStream({ prompt: afterSearch, tools: TOOLS })).stream);
    const text = streamed.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : [])).join('');
    expect(generated.content).toEqual([{ type: 'text', text }]);
    expect(generated.finishReason).toEqual({ unified: 'stop', raw: 'stop' });
    expect(generated.warnings).toEqual([]);

    const calling = await model.doGenerate({ prompt: askForHoodies, tools: TOOLS });
    expect(calling.content).toEqual([
      {
        type: 'tool-call',
        toolCallId: expect.stringMatching(/^call_/),
        toolName: 'searchProducts',
        input: '{"query":"hoodies","limit":5}',
      },
    ]);
  });

  it('calls no tool the caller did not offer', async () => {
    const model = new OfflineChatModel();
    const noTools = await model.doGenerate({ prompt: askForHoodies });
    const refused = await model.doGenerate({
      prompt: askForHoodies,
      tools: TOOLS,
      toolChoice: { type: 'none' },
    });
    for (const result of [noTools, refused]) {
      expect(result.content).toEqual([
        { type: 'text', text: "Sorry, I can't search the catalogue right now." },
      ]);
    }
  });

  it('gives the same parts for the same prompt, and other ids for another prompt', async () => {
    const model = new OfflineChatModel();
    const first = await partsOf((await model.doStream({ prompt: askForHoodies, tools: TOOLS })).stream);
    const second = await partsOf(
      (await new OfflineChatModel().doStream({ prompt: askForHoodies, tools: TOOLS })).stream,
    );
    expect(second).toEqual(first);
    const other = await partsOf((await model.doStream({ prompt: afterSearch, tools: TOOLS })).stream);
    const idOf = (parts: LanguageModelV3StreamPart[]) =>
      parts.flatMap((part) =>
        part.type === 'tool-call' ? [part.toolCallId] : part.type === 'text-start' ? [part.id] : [],
      );
    expect(idOf(other)[0]).not.toEqual(idOf(first)[0]);
  });
});

describe('OfflineChatModel and abort signals', () => {
  it('refuses to start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('client went away'));
    await expect(
      new OfflineChatModel().doStream({
        prompt: askForHoodies,
        tools: TOOLS,
        abortSignal: controller.signal,
      }),
    ).rejects.toThrow('client went away');
  });

  it('stops a stream between two parts when the signal aborts', async () => {
    const controller = new AbortController();
    const { stream } = await new OfflineChatModel().doStream({
      prompt: afterSearch,
      tools: TOOLS,
      abortSignal: controller.signal,
    });
    const reader = stream.getReader();
    expect((await reader.read()).value).toEqual({ type: 'stream-start', warnings: [] });
    controller.abort(new Error('stop'));
    await expect(reader.read()).rejects.toThrow('stop');
  });

  it('ends a streamText run early with an abort part', async () => {
    const controller = new AbortController();
    const shop = createFakeShop();
    const result = streamText({
      model: new OfflineChatModel({ chunkDelayMs: 2 }),
      messages: [{ role: 'user', content: 'show me hoodies' }],
      tools: shop.tools,
      stopWhen: stepCountIs(5),
      abortSignal: controller.signal,
    });
    const types: string[] = [];
    let text = '';
    for await (const part of result.fullStream) {
      types.push(part.type);
      if (part.type === 'text-delta') {
        text += part.text;
        if (text.length > 20) controller.abort();
      }
    }
    expect(types).toContain('tool-result');
    expect(types.at(-1)).toBe('abort');
    expect(types).not.toContain('text-end');
    expect(text.length).toBeLessThan(100);
  });
});

describe('OfflineChatModel through the UI message stream', () => {
  async function uiTurn(shop: ReturnType<typeof createFakeShop>, history: UIMessage[], text: string) {
    const user: UIMessage = { id: `user-${history.length}`, role: 'user', parts: [{ type: 'text', text }] };
    const messages = [...history, user];
    const result = streamText({
      model: new OfflineChatModel(),
      messages: await convertToModelMessages(messages),
      tools: shop.tools,
      stopWhen: stepCountIs(5),
    });
    const chunks: UIMessageChunk[] = [];
    const stream = result.toUIMessageStream().pipeThrough(
      new TransformStream<UIMessageChunk, UIMessageChunk>({
        transform(chunk, controller) {
          chunks.push(chunk);
          controller.enqueue(chunk);
        },
      }),
    );
    let assistant: UIMessage | undefined;
    for await (const snapshot of readUIMessageStream({ stream })) assistant = snapshot;
    if (!assistant) throw new Error('no assistant message');
    return { chunks, messages: [...messages, { ...assistant, id: `assistant-${history.length}` }] };
  }

  it('resolves "the second one" from tool results stored as UI message parts', async () => {
    const shop = createFakeShop();
    const first = await uiTurn(shop, [], 'show me hoodies');
    const searchPart = first.messages.at(-1)?.parts.find((part) => part.type === 'tool-searchProducts');
    expect(searchPart).toMatchObject({ state: 'output-available', input: { query: 'hoodies' } });
    const second = await uiTurn(shop, first.messages, 'add the second one in M');

    const secondProduct = (searchPart as { output: typeof SEARCH_RESULT }).output.products[1];
    expect(shop.cart).toEqual([
      expect.objectContaining({
        productId: secondProduct?.productId,
        price: secondProduct?.price,
        size: 'M',
      }),
    ]);
    expect(second.chunks.map(({ type }) => type)).toEqual([
      'start',
      'start-step',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-available',
      'tool-output-available',
      'finish-step',
      'start-step',
      'text-start',
      ...second.chunks.filter(({ type }) => type === 'text-delta').map(() => 'text-delta'),
      'text-end',
      'finish-step',
      'finish',
    ]);
  });

  it('streams the same UI chunks for the same conversation', async () => {
    const run = async () => {
      const shop = createFakeShop();
      const first = await uiTurn(shop, [], 'show me rain jackets');
      const second = await uiTurn(shop, first.messages, 'add the first one in L');
      return [...first.chunks, ...second.chunks];
    };
    const [one, two] = await Promise.all([run(), run()]);
    expect(one.length).toBeGreaterThan(20);
    expect(two).toEqual(one);
  });
});
