import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import {
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import { OfflineChatModel } from '@shop/assistant';
import { SESSION_COOKIE } from '../src/auth/session-cookies';
import type { TestClient } from './stack';

/**
 * The gateway's chat model in tests: one stack per file, and each test scripts the model it needs
 * by setting `current` (the offline model until then).
 */
export class SwitchableModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider = 'test';
  readonly modelId = 'switchable';
  readonly supportedUrls = {};
  current: LanguageModelV3 = new OfflineChatModel();

  doGenerate(options: LanguageModelV3CallOptions) {
    return this.current.doGenerate(options);
  }

  doStream(options: LanguageModelV3CallOptions) {
    return this.current.doStream(options);
  }
}

const usage: LanguageModelV3Usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** One model call that writes `text` in a few deltas and stops. */
export function textStep(text: string, id = 'txt-1'): LanguageModelV3StreamPart[] {
  const words = text.split(/(?<= )/);
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id },
    ...words.map((delta): LanguageModelV3StreamPart => ({ type: 'text-delta', id, delta })),
    { type: 'text-end', id },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ];
}

/** One model call that calls tools and hands the turn back to the SDK's tool loop. */
export function toolStep(
  calls: { toolName: string; input: unknown; toolCallId?: string }[],
): LanguageModelV3StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    ...calls.map(({ toolName, input, toolCallId }, index): LanguageModelV3StreamPart => ({
      type: 'tool-call',
      toolCallId: toolCallId ?? `call-${index + 1}`,
      toolName,
      input: JSON.stringify(input),
    })),
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
  ];
}

/**
 * A mock model playing `steps` in order, one per model call (the last one repeats), and naming
 * sessions `title` when asked with generateText.
 */
export function scriptedModel(
  steps: LanguageModelV3StreamPart[][],
  options: { title?: string; chunkDelayInMs?: number } = {},
): MockLanguageModelV3 {
  const model: MockLanguageModelV3 = new MockLanguageModelV3({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: steps[Math.min(model.doStreamCalls.length, steps.length) - 1] ?? [],
        chunkDelayInMs: options.chunkDelayInMs ?? 0,
      }),
    }),
    doGenerate: async () => {
      if (options.title === undefined) throw new Error('this scripted model names no session');
      return {
        content: [{ type: 'text', text: options.title }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      };
    },
  });
  return model;
}

/** `inner`, except that its next answer breaks (as a cut connection does) after `parts` stream parts. */
export function breakingAfter(inner: LanguageModelV3, parts: number): LanguageModelV3 {
  const model = scriptedModel([]);
  model.doStream = async (options) => {
    const reader = (await inner.doStream(options)).stream.getReader();
    let read = 0;
    return {
      stream: new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          const next = await reader.read();
          if (next.done || ++read > parts) controller.error(new Error('connection reset'));
          else controller.enqueue(next.value);
        },
      }),
    };
  };
  return model;
}

export interface ChatReply {
  status: number;
  headers: Headers;
  /** The raw body, for checks of the SSE framing. */
  text: string;
  /** Every chunk, parsed by the AI SDK's own client-side schema. */
  chunks: UIMessageChunk[];
  /** The assistant message as the SDK's client reader assembles it. */
  message: UIMessage | undefined;
  /** The JSON error envelope of a refused request. */
  json: Record<string, unknown>;
}

function streamOf(text: string): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
}

/** Parses an SSE body the way `useChat` does; a chunk the SDK's schema refuses fails the test. */
export async function parseChatStream(
  text: string,
): Promise<{ chunks: UIMessageChunk[]; message?: UIMessage }> {
  const chunks: UIMessageChunk[] = [];
  const parsed = parseJsonEventStream({ stream: streamOf(text), schema: uiMessageChunkSchema }).getReader();
  for (let next = await parsed.read(); !next.done; next = await parsed.read()) {
    if (!next.value.success) throw new Error(`chunk rejected by the AI SDK: ${String(next.value.error)}`);
    chunks.push(next.value.value);
  }
  let message: UIMessage | undefined;
  const replay = new ReadableStream<UIMessageChunk>({
    start(controller) {
      // The reader updates data parts in place; the chunks stay as they were sent.
      for (const chunk of chunks) controller.enqueue(structuredClone(chunk));
      controller.close();
    },
  });
  for await (const snapshot of readUIMessageStream({ stream: replay })) message = snapshot;
  return { chunks, ...(message && { message }) };
}

/** POST /api/chat through the cookie-keeping client, the streamed answer read to its end. */
export async function chat(client: TestClient, body: Record<string, unknown>): Promise<ChatReply> {
  const response = await client.request('POST', '/api/chat', body);
  const isStream = response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
  const parsed = isStream ? await parseChatStream(response.text) : { chunks: [] };
  return {
    status: response.status,
    headers: response.headers,
    text: response.text,
    chunks: parsed.chunks,
    message: 'message' in parsed ? parsed.message : undefined,
    json: response.json,
  };
}

let counter = 0;
/** A user turn as useChat sends it. */
export function userMessage(text: string, id = `msg-${Date.now()}-${++counter}`) {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

/** Headers of a raw fetch made as the client's user (for reading or cutting a stream by hand). */
export function sessionHeaders(client: TestClient): Record<string, string> {
  return {
    'content-type': 'application/json',
    cookie: `${SESSION_COOKIE}=${client.cookie(SESSION_COOKIE) ?? ''}`,
  };
}

export const toolCallsOf = (chunks: UIMessageChunk[]) =>
  chunks.flatMap((chunk) =>
    chunk.type === 'tool-input-available' ? [{ toolName: chunk.toolName, input: chunk.input }] : [],
  );

export const textOf = (message: UIMessage | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
