import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { UIMessageChunk } from 'ai';
import { createChatModel, OFFLINE_MODEL_ID, OfflineChatModel } from '@shop/assistant';
import { startModelSandbox, type ModelSandbox } from '@shop/sandbox-model';
import {
  breakingAfter,
  chat,
  parseChatStream,
  scriptedModel,
  sessionHeaders,
  SwitchableModel,
  textStep,
  toolStep,
  userMessage,
} from './chat-harness';
import { startTestStack, TestClient, TestStack } from './stack';

const model = new SwitchableModel();
let stack: TestStack;
let sandbox: ModelSandbox;

beforeAll(async () => {
  sandbox = await startModelSandbox();
  stack = await startTestStack('chatstream', {}, { chatModel: model });
});
afterAll(async () => {
  await stack?.stop();
  await sandbox?.close();
});
afterEach(() => {
  model.current = new OfflineChatModel();
  sandbox.clearFaults();
});

/**
 * The two models the conformance tests run against: the in-process offline model, and the same
 * planner behind the OpenAI-compatible stand-in, reached by the production client (@ai-sdk/openai).
 */
const models: { name: string; make: () => LanguageModelV3; breakNextAnswer: () => void }[] = [
  {
    name: 'the in-process offline model',
    make: () => new OfflineChatModel(),
    breakNextAnswer: () => {
      model.current = breakingAfter(new OfflineChatModel(), 3);
    },
  },
  {
    name: 'the stand-in through the production client',
    make: () =>
      createChatModel({
        OPENAI_API_KEY: sandbox.apiKey,
        OPENAI_BASE_URL: sandbox.baseURL,
        CHAT_MODEL: OFFLINE_MODEL_ID,
      }),
    breakNextAnswer: () => sandbox.failNext({ mode: 'cut', afterChunks: 3 }),
  },
];

const email = () => `${randomUUID().slice(0, 8)}@example.com`;
async function shopper(): Promise<TestClient> {
  const client = new TestClient(stack.url);
  await client.onboard(email());
  return client;
}

/**
 * The keys each chunk may carry for an ai 6.0.0 client, which parses with strict schemas
 * (shared/reference/ai-sdk-ui-stream.md, chunk catalogue), written out here independently of the
 * gateway's own filter.
 */
const ai600Keys: Record<string, string[]> = {
  start: ['messageId', 'messageMetadata'],
  'start-step': [],
  'finish-step': [],
  'text-start': ['id', 'providerMetadata'],
  'text-delta': ['id', 'delta', 'providerMetadata'],
  'text-end': ['id', 'providerMetadata'],
  'tool-input-start': ['toolCallId', 'toolName', 'providerExecuted', 'dynamic', 'title'],
  'tool-input-delta': ['toolCallId', 'inputTextDelta'],
  'tool-input-available': [
    'toolCallId',
    'toolName',
    'input',
    'providerExecuted',
    'providerMetadata',
    'dynamic',
    'title',
  ],
  'tool-output-available': ['toolCallId', 'output', 'providerExecuted', 'dynamic', 'preliminary'],
  'tool-output-error': ['toolCallId', 'errorText', 'providerExecuted', 'dynamic'],
  'data-memwal-activity': ['id', 'data', 'transient'],
  finish: ['finishReason', 'messageMetadata'],
  // `error` is the spec's name of the text, sent next to errorText on purpose (see v6-chunks.ts).
  error: ['errorText', 'error'],
};

function expectAi600Chunks(chunks: UIMessageChunk[]) {
  for (const chunk of chunks) {
    const allowed = ai600Keys[chunk.type];
    expect(allowed, `chunk type ${chunk.type}`).toBeDefined();
    expect(Object.keys(chunk).filter((key) => key !== 'type' && !allowed!.includes(key))).toEqual([]);
  }
}

describe.each(models)('POST /api/chat stream, answered by $name', ({ make, breakNextAnswer }) => {
  beforeEach(() => {
    model.current = make();
  });

  it('streams the UI message protocol v1 with X-Session-Id, in order, ending with [DONE]', async () => {
    const client = await shopper();
    const reply = await chat(client, { messages: [userMessage('show me red running shoes under $120')] });

    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/event-stream');
    expect(reply.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(reply.headers.get('cache-control')).toBe('no-cache');
    expect(reply.headers.get('x-session-id')).toMatch(/^[0-9a-f-]{36}$/);
    const events = reply.text.split('\n\n').filter(Boolean);
    expect(events.every((event) => event.startsWith('data: '))).toBe(true);
    expect(events.at(-1)).toBe('data: [DONE]');

    const types = reply.chunks.map((chunk) => chunk.type);
    expect(types).toEqual([
      'start',
      'data-memwal-activity',
      'data-memwal-activity',
      'start-step',
      'tool-input-start',
      // One delta from the in-process model; the arguments in pieces from a server.
      ...types.filter((type) => type === 'tool-input-delta'),
      'tool-input-available',
      'tool-output-available',
      'finish-step',
      'start-step',
      'text-start',
      ...types.filter((type) => type === 'text-delta'),
      'text-end',
      'finish-step',
      'finish',
    ]);
    expectAi600Chunks(reply.chunks);
    const [start, loading, recalled] = reply.chunks;
    expect(start).toEqual({ type: 'start', messageId: expect.any(String) });
    expect(loading).toMatchObject({ id: 'memwal-recall', data: { status: 'loading', source: 'memwal' } });
    expect(recalled).toMatchObject({ id: 'memwal-recall', data: { status: 'success' } });
    expect(reply.chunks.find((chunk) => chunk.type === 'tool-input-available')).toMatchObject({
      toolName: 'searchProducts',
      input: { query: 'running shoes', color: 'red', maxPrice: 120 },
    });
    const call = reply.chunks.find((chunk) => chunk.type === 'tool-input-available');
    const result = reply.chunks.find((chunk) => chunk.type === 'tool-output-available');
    expect(result).toMatchObject({
      toolCallId: (call as { toolCallId: string }).toolCallId,
      output: { products: expect.any(Array) },
    });
    expect(reply.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    expect(reply.message?.id).toBe((start as { messageId: string }).messageId);
  });

  it('keeps the CORS and correlation headers on the stream', async () => {
    const client = await shopper();
    const response = await client.request(
      'POST',
      '/api/chat',
      { messages: [userMessage('hello')] },
      { origin: 'http://localhost:5173', 'x-correlation-id': 'chat-corr-1' },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
    expect(response.headers.get('access-control-expose-headers')).toMatch(/x-session-id/);
    expect(response.headers.get('x-correlation-id')).toBe('chat-corr-1');
    expect(response.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
  });

  it('ends a stream broken after it started with an error chunk and a proper end', async () => {
    const client = await shopper();
    const sessionId = (await chat(client, { messages: [userMessage('hello')] })).headers.get('x-session-id');
    breakNextAnswer();
    const reply = await chat(client, { sessionId, messages: [userMessage('show me hats')] });

    expect(reply.status).toBe(200);
    expect(reply.text.endsWith('data: [DONE]\n\n')).toBe(true);
    const types = reply.chunks.map(({ type }) => type);
    expect(types.slice(-3)).toEqual(['error', 'finish-step', 'finish']);
    expect(reply.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'error' });
    expectAi600Chunks(reply.chunks);
  });
});

describe('POST /api/chat stream, scripted models', () => {
  it('stops after 5 steps when the model keeps calling tools', async () => {
    const client = await shopper();
    const looping = scriptedModel([toolStep([{ toolName: 'viewCart', input: {} }])]);
    model.current = looping;
    const reply = await chat(client, { messages: [userMessage("what's in my cart, again and again")] });

    expect(reply.status).toBe(200);
    expect(looping.doStreamCalls).toHaveLength(5);
    expect(reply.chunks.filter((chunk) => chunk.type === 'start-step')).toHaveLength(5);
    expect(reply.chunks.filter((chunk) => chunk.type === 'tool-output-available')).toHaveLength(5);
    expect(reply.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls' });
    expectAi600Chunks(reply.chunks);
  });

  it('refuses bad requests with the JSON envelope before any stream starts', async () => {
    const client = await shopper();
    const cases: [unknown, number, string][] = [
      [{ messages: [] }, 400, 'VALIDATION_ERROR'],
      [{}, 400, 'VALIDATION_ERROR'],
      [{ messages: [{ role: 'user' }] }, 400, 'VALIDATION_ERROR'],
      [{ messages: [{ role: 'user', content: '   ' }] }, 400, 'VALIDATION_ERROR'],
      [{ messages: [userMessage('hi'), { role: 'assistant', content: 'hello' }] }, 400, 'VALIDATION_ERROR'],
      [{ messages: [userMessage('hi')], sessionId: 'not-a-uuid' }, 400, 'VALIDATION_ERROR'],
      [{ messages: [userMessage('hi')], sessionId: randomUUID() }, 404, 'SessionNotFound'],
    ];
    for (const [body, status, code] of cases) {
      const reply = await chat(client, body as Record<string, unknown>);
      expect([reply.status, reply.json?.code], JSON.stringify(body)).toEqual([status, code]);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(typeof reply.json.error).toBe('string');
    }
    const sessions = await client.request('GET', '/api/sessions');
    expect(sessions.json.total).toBe(0);

    const owner = await shopper();
    const created = await chat(owner, { messages: [userMessage('hello')] });
    const sessionId = created.headers.get('x-session-id');
    const stranger = await chat(client, { messages: [userMessage('hi')], sessionId });
    expect([stranger.status, stranger.json.code]).toEqual([403, 'SessionOwnershipError']);

    const anonymous = await chat(new TestClient(stack.url), { messages: [userMessage('hi')] });
    expect([anonymous.status, anonymous.json.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('turns a failure after the stream started into an error chunk and a proper end', async () => {
    const client = await shopper();
    model.current = scriptedModel([
      [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: 'Let me ' },
        { type: 'error', error: new Error('upstream model crashed: secret detail') },
      ],
    ]);
    const reply = await chat(client, { messages: [userMessage('show me hats')] });

    expect(reply.status).toBe(200);
    expect(reply.text.endsWith('data: [DONE]\n\n')).toBe(true);
    const error = reply.chunks.find((chunk) => chunk.type === 'error');
    expect(error).toEqual({
      type: 'error',
      errorText: 'The assistant could not answer; please try again.',
      error: 'The assistant could not answer; please try again.',
    });
    expect(reply.chunks[0]?.type).toBe('start');
    expectAi600Chunks(reply.chunks);
  });

  it('answers a model that fails before saying anything with 502 UPSTREAM_ERROR, the user turn stored', async () => {
    const client = await shopper();
    model.current = scriptedModel([]);
    model.current.doStream = async () => {
      throw new Error('connection refused');
    };
    const refused = await chat(client, { messages: [userMessage('show me hats', 'hats-1')] });
    expect([refused.status, refused.json.code]).toEqual([502, 'UPSTREAM_ERROR']);
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
    expect(refused.json.error).toBe('The assistant could not answer; please try again.');
    const session = await client.request('GET', `/api/sessions/${refused.headers.get('x-session-id')}`);
    expect((session.json.messages as { id: string }[]).map(({ id }) => id)).toEqual(['hats-1']);
  });

  it('aborts the model call when the client disconnects', async () => {
    const client = await shopper();
    const slow = scriptedModel([textStep('word '.repeat(200))], { chunkDelayInMs: 50 });
    model.current = slow;
    const disconnect = new AbortController();
    const response = await fetch(`${stack.url}/api/chat`, {
      method: 'POST',
      headers: sessionHeaders(client),
      body: JSON.stringify({ messages: [userMessage('tell me a long story about shoes')] }),
      signal: disconnect.signal,
    });
    const reader = response.body!.getReader();
    let received = '';
    while (!received.includes('text-delta'))
      received += new TextDecoder().decode((await reader.read()).value);
    disconnect.abort();

    const deadline = Date.now() + 5000;
    while (!slow.doStreamCalls[0]?.abortSignal?.aborted && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(slow.doStreamCalls[0]?.abortSignal?.aborted).toBe(true);
    // What was received so far is valid protocol.
    const { chunks } = await parseChatStream(received.slice(0, received.lastIndexOf('\n\n') + 2));
    expect(chunks[0]?.type).toBe('start');
  });
});
