import { createOpenAI } from '@ai-sdk/openai';
import { APICallError } from '@ai-sdk/provider';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTitlePrompt, OFFLINE_MODEL_ID, SHOPPING_TOOL_NAMES } from '@shop/assistant';
import { converse, createFakeShop } from '../../../../libs/assistant/test/fake-shop';
import {
  expectScriptFollowed,
  runScript,
  writeTranscript,
} from '../../../../libs/assistant/test/shopper-script';
import { startModelSandbox, type ModelSandbox } from '../src';

let sandbox: ModelSandbox;
beforeAll(async () => {
  sandbox = await startModelSandbox();
});
afterAll(() => sandbox?.close());
afterEach(() => sandbox.clearFaults());

/** The production client, as the gateway builds it, with the SDK's own retries off unless a test asks. */
const client = () =>
  createOpenAI({ apiKey: sandbox.apiKey, baseURL: sandbox.baseURL }).chat(OFFLINE_MODEL_ID);

const SHOPPING = [
  'show me hoodies',
  'add the second one in M',
  "what's in my cart?",
  'check out the hoodie',
  'remember that I prefer slim fit',
  'empty my cart',
];

async function post(body: unknown, key = sandbox.apiKey) {
  const response = await fetch(`${sandbox.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const sseData = (text: string) =>
  text
    .split('\n\n')
    .filter(Boolean)
    .map((event) => {
      expect(event.startsWith('data: ')).toBe(true);
      return event.slice('data: '.length);
    });

describe('answers through the real @ai-sdk/openai client as the in-process offline model does', () => {
  it('makes the same tool calls with the same arguments and says the same, turn after turn', async () => {
    const inProcess = await converse(createFakeShop(), SHOPPING);
    const overHttp = await converse(createFakeShop(), SHOPPING, client());
    const view = (turns: typeof inProcess) =>
      turns.map(({ toolCalls, outputs, text }) => ({ toolCalls, outputs, text }));
    expect(view(overHttp)).toEqual(view(inProcess));
    expect(overHttp.flatMap((turn) => turn.toolCalls).map(({ toolName }) => toolName)).toEqual([
      'searchProducts',
      'addToCart',
      'viewCart',
      'checkout',
      'rememberMemory',
      'removeFromCart',
    ]);
  });

  it("offers and accepts every shop tool, the lookups included: a shopper's three chats turn for turn as in process", async () => {
    const before = sandbox.requests().length;
    const overHttp = await runScript(client());
    writeTranscript('shopper-conversation.model-stand-in.md', overHttp);
    expectScriptFollowed(overHttp);
    // Every request offered every tool, and the stand-in's schema check accepted them all (a refusal is a 400 the client throws).
    const requests = sandbox.requests().slice(before);
    expect(requests.length).toBeGreaterThanOrEqual(overHttp.length);
    for (const { tools } of requests) expect(new Set(tools)).toEqual(new Set(SHOPPING_TOOL_NAMES));
    const inProcess = await runScript();
    const view = (turns: typeof overHttp) =>
      turns.map(({ turn: { toolCalls, outputs, text } }) => ({ toolCalls, outputs, text }));
    expect(view(overHttp)).toEqual(view(inProcess));
    expect(new Set(overHttp.flatMap(({ turn }) => turn.toolCalls.map(({ toolName }) => toolName)))).toEqual(
      new Set([
        'searchProducts',
        'getProductDetails',
        'viewCart',
        'addToCart',
        'removeFromCart',
        'checkout',
        'rememberMemory',
        'getOrders',
        'compareProducts',
        'recallMemories',
      ]),
    );
  });

  it('answers a non-streaming call (the session title)', async () => {
    const { system, prompt } = buildTitlePrompt('show me red running shoes under $80');
    const { text, finishReason, usage } = await generateText({ model: client(), system, prompt });
    expect(text).toBe('Red running shoes under $80');
    expect(finishReason).toBe('stop');
    expect(usage.inputTokens).toBeGreaterThan(0);
  });

  it('lists its models', async () => {
    const response = await fetch(`${sandbox.baseURL}/models`, {
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    });
    expect(await response.json()).toEqual({
      object: 'list',
      data: [{ id: OFFLINE_MODEL_ID, object: 'model', created: expect.any(Number), owned_by: 'sandbox' }],
    });
  });
});

describe('the stream on the wire', () => {
  const searchTool = {
    type: 'function',
    function: {
      name: 'searchProducts',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string' }, color: { type: 'string' }, maxPrice: { type: 'number' } },
        required: ['query'],
      },
    },
  };

  it('sends the role, the tool call opened then its arguments in pieces, the finish reason, the usage, [DONE]', async () => {
    const reply = await post({
      model: OFFLINE_MODEL_ID,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'show me red running shoes under $120' }],
      tools: [searchTool],
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const data = sseData(reply.text);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((line) => JSON.parse(line));
    expect(
      chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.id === chunks[0].id),
    ).toBe(true);
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: null, refusal: null });
    const calls = chunks.slice(1, -2).map((chunk) => chunk.choices[0].delta.tool_calls[0]);
    expect(calls[0]).toEqual({
      index: 0,
      id: expect.stringMatching(/^call_/),
      type: 'function',
      function: { name: 'searchProducts', arguments: '' },
    });
    expect(calls.length).toBeGreaterThan(2);
    expect(JSON.parse(calls.map((call) => call.function.arguments).join(''))).toMatchObject({
      query: 'running shoes',
      color: 'red',
      maxPrice: 120,
    });
    expect(chunks.at(-2).choices).toEqual([
      { index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' },
    ]);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: expect.any(Number) } });
  });

  it('streams text word by word and ends with finish_reason stop, without usage unless asked', async () => {
    const reply = await post({
      model: OFFLINE_MODEL_ID,
      stream: true,
      messages: [{ role: 'user', content: 'hello' }],
    });
    const chunks = sseData(reply.text)
      .slice(0, -1)
      .map((line) => JSON.parse(line));
    const text = chunks.map((chunk) => chunk.choices[0].delta.content ?? '').join('');
    expect(text.length).toBeGreaterThan(0);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.at(-1).choices[0].finish_reason).toBe('stop');
    expect(chunks.some((chunk) => 'usage' in chunk)).toBe(false);
  });
});

describe('refuses what a strict server refuses, in OpenAI error shape', () => {
  const user = { role: 'user', content: 'show me hats' };
  const call = { id: 'call_1', type: 'function', function: { name: 'viewCart', arguments: '{}' } };
  const viewCart = {
    type: 'function',
    function: { name: 'viewCart', parameters: { type: 'object', properties: {} } },
  };
  const cases: [string, Record<string, unknown>, number, string | null, RegExp][] = [
    [
      'an invalid JSON Schema',
      {
        tools: [
          {
            type: 'function',
            function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'strin' } } } },
          },
        ],
      },
      400,
      'invalid_function_parameters',
      /Invalid schema for function 'f'/,
    ],
    [
      'parameters that are not an object schema',
      { tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'string' } } }] },
      400,
      'invalid_function_parameters',
      /type: "object"/,
    ],
    [
      'a strict schema with an optional property',
      {
        tools: [
          {
            type: 'function',
            function: {
              name: 'f',
              strict: true,
              parameters: {
                type: 'object',
                properties: { a: { type: 'string' } },
                additionalProperties: false,
              },
            },
          },
        ],
      },
      400,
      'invalid_function_parameters',
      /'required' is required/,
    ],
    [
      'a bad function name',
      { tools: [{ type: 'function', function: { name: 'no spaces', parameters: { type: 'object' } } }] },
      400,
      null,
      /tools\[0\]\.function\.name/,
    ],
    [
      'a tool message answering no call',
      { messages: [user, { role: 'tool', tool_call_id: 'call_9', content: '{}' }] },
      400,
      null,
      /must be a response to a preceeding message with 'tool_calls'/,
    ],
    [
      'a tool call left unanswered',
      { messages: [user, { role: 'assistant', tool_calls: [call] }, user], tools: [viewCart] },
      400,
      null,
      /did not have response messages: call_1/,
    ],
    [
      'a reused tool call id',
      {
        messages: [
          user,
          { role: 'assistant', tool_calls: [call] },
          { role: 'tool', tool_call_id: 'call_1', content: '{}' },
          { role: 'assistant', tool_calls: [call] },
          { role: 'tool', tool_call_id: 'call_1', content: '{}' },
        ],
        tools: [viewCart],
      },
      400,
      null,
      /Duplicate tool_call id/,
    ],
    ['an unknown role', { messages: [{ role: 'robot', content: 'hi' }] }, 400, null, /messages\[0\]/],
    [
      'an unknown parameter',
      { temperature_x: 1 },
      400,
      null,
      /Unrecognized request argument supplied: temperature_x/,
    ],
    ['an unknown model', { model: 'gpt-nope' }, 404, 'model_not_found', /gpt-nope/],
  ];
  it.each(cases)('%s', async (_name, change, status, code, message) => {
    const reply = await post({ model: OFFLINE_MODEL_ID, messages: [user], ...change });
    expect(reply.status).toBe(status);
    const body = JSON.parse(reply.text);
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect([body.error.type, body.error.code]).toEqual(['invalid_request_error', code]);
    expect(body.error.message).toMatch(message);
  });

  it('refuses a wrong key with 401', async () => {
    const reply = await post({ model: OFFLINE_MODEL_ID, messages: [user] }, 'sk-wrong');
    expect([reply.status, JSON.parse(reply.text).error.code]).toEqual([401, 'invalid_api_key']);
  });

  it('accepts the tool schemas the AI SDK sends for the shop', async () => {
    const { tools } = createFakeShop();
    const result = streamText({ model: client(), prompt: 'show me hoodies', tools, maxRetries: 0 });
    expect((await result.toolCalls).map(({ toolName }) => toolName)).toEqual(['searchProducts']);
  });

  it('surfaces a refusal to the client as a non-retryable APICallError', async () => {
    const broken = tool({
      inputSchema: jsonSchema({ type: 'object', properties: { a: { type: 'strin' } } } as never),
    });
    const failure = await generateText({
      model: client(),
      prompt: 'hi',
      tools: { broken },
      maxRetries: 0,
    }).catch((error: unknown) => error);
    expect(APICallError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ statusCode: 400, isRetryable: false });
  });
});

describe('faults', () => {
  it('429 with retry-after: the client retries and gets the answer', async () => {
    sandbox.failNext({ mode: 'rate-limit', retryAfterSeconds: 0 });
    const before = sandbox.requests().length;
    const { text } = await generateText({ model: client(), prompt: 'hello', maxRetries: 1 });
    expect(text.length).toBeGreaterThan(0);
    expect(
      sandbox
        .requests()
        .slice(before)
        .map(({ fault }) => fault),
    ).toEqual(['rate-limit', undefined]);

    sandbox.failNext({ mode: 'rate-limit', retryAfterSeconds: 7 });
    const response = await post({ model: OFFLINE_MODEL_ID, messages: [{ role: 'user', content: 'hi' }] });
    expect([response.status, response.headers.get('retry-after')]).toEqual([429, '7']);
    expect(JSON.parse(response.text).error.code).toBe('rate_limit_exceeded');
  });

  it('500: a retryable APICallError', async () => {
    sandbox.failNext({ mode: 'error' });
    const failure = await generateText({ model: client(), prompt: 'hello', maxRetries: 0 }).catch(
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ statusCode: 500, isRetryable: true });
    sandbox.failNext({ mode: 'error', status: 503 });
    const again = await post({ model: OFFLINE_MODEL_ID, messages: [{ role: 'user', content: 'hi' }] });
    expect(again.status).toBe(503);
  });

  it('hang: nothing comes back until the caller gives up', async () => {
    sandbox.failNext({ mode: 'hang' });
    const failure = await generateText({
      model: client(),
      prompt: 'hello',
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(300),
    }).catch((error: unknown) => error);
    expect((failure as Error).name).toMatch(/AbortError|TimeoutError/);
  });

  it('cut: the stream breaks after some chunks, with what came before delivered', async () => {
    sandbox.failNext({ mode: 'cut', afterChunks: 3 });
    const result = streamText({
      model: client(),
      prompt: 'tell me about hoodies and jackets',
      maxRetries: 0,
    });
    const parts: string[] = [];
    let failed: unknown;
    try {
      for await (const part of result.fullStream)
        parts.push(part.type === 'text-delta' ? `text:${part.text}` : part.type);
    } catch (error) {
      failed = error;
    }
    const text = parts.filter((part) => part.startsWith('text:'));
    expect(text).toHaveLength(2);
    expect(failed ?? parts.find((part) => part === 'error')).toBeDefined();
    expect(parts).not.toContain('finish');
  });

  it('slow: every chunk held back, the answer unchanged', async () => {
    const fast = await generateText({ model: client(), prompt: 'hello' });
    sandbox.failNext({ mode: 'slow', delayMs: 20 });
    const result = streamText({ model: client(), prompt: 'hello' });
    expect(await result.text).toBe(fast.text);
    expect(sandbox.requests().at(-1)?.fault).toBe('slow');
  });
});
