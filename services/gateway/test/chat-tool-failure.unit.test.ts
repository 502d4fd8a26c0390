import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { UIMessage, UIMessageChunk } from 'ai';
import { cartFull, checkoutOrderCreation } from '@shop/domain';
import { MemwalError } from '@shop/memory';
import { ProductSearchError } from '@shop/product-search';
import {
  failuresAsResults,
  unrunnableCallAsResult,
  unrunnableCallsAsResults,
} from '../src/chat/tool-failure';

function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

const call = { toolCallId: 'call-1' };
const failing = (error: unknown) => async () => {
  throw error;
};

describe('failuresAsResults', () => {
  it('passes a success through untouched', async () => {
    const { logger } = capturedLogger();
    const run = failuresAsResults(logger, 'user-1')('viewCart', async () => ({ success: true as const }));
    expect(await run({}, call)).toEqual({ success: true });
  });

  it('answers a refusal with its REST code and message, and logs nothing', async () => {
    const { logger, lines } = capturedLogger();
    const run = failuresAsResults(logger, 'user-1')('addToCart', failing(cartFull()));
    expect(await run({}, call)).toEqual({
      success: false,
      code: 'CartFullError',
      message: 'The cart already holds 10 items',
    });
    expect(lines).toEqual([]);
  });

  it("answers the provider's refusal in the shopper's words; its own words go only to the log", async () => {
    const { logger, lines } = capturedLogger();
    const detail = 'provider orders.create failed (invalid, HTTP 400): recipient email rejected';
    const run = failuresAsResults(logger, 'user-1')('checkout', failing(checkoutOrderCreation(detail)));
    const result = await run({}, call);
    expect(result).toEqual({
      success: false,
      code: 'CheckoutOrderCreationError',
      message: 'The payment provider could not create the order right now; please try again later',
    });
    expect(JSON.stringify(result)).not.toContain('HTTP 400');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        tool: 'checkout',
        userId: 'user-1',
        code: 'CheckoutOrderCreationError',
      }),
    ]);
    expect(JSON.stringify(lines)).toContain('recipient email rejected');
  });

  it.each([
    ['a search that timed out', new ProductSearchError('timeout', 'no answer in 5000 ms'), 'UPSTREAM_ERROR'],
    [
      'a search refused as invalid',
      new ProductSearchError('invalid', 'limit must be at most 50'),
      'VALIDATION_ERROR',
    ],
    [
      'the memory service down',
      new MemwalError('network', 'MemWal /remember is unreachable'),
      'UPSTREAM_ERROR',
    ],
  ])('answers %s with a stable code', async (_case, error, code) => {
    const { logger } = capturedLogger();
    const run = failuresAsResults(logger, 'user-1')('searchProducts', failing(error));
    expect(await run({}, call)).toMatchObject({ success: false, code, message: expect.any(String) });
  });

  it('answers the unexpected with a generic message; the details are only in the log', async () => {
    const { logger, lines } = capturedLogger();
    const secret = 'connect ECONNREFUSED 10.0.0.7:5432 password=hunter2';
    const run = failuresAsResults(logger, 'user-1')('viewCart', failing(new Error(secret)));
    const result = await run({}, call);
    expect(result).toEqual({
      success: false,
      code: 'INTERNAL_ERROR',
      message: 'The shop could not complete this action right now; please try again',
    });
    expect(JSON.stringify(result)).not.toContain('ECONNREFUSED');
    expect(lines).toEqual([
      expect.objectContaining({ level: 50, tool: 'viewCart', msg: 'chat tool failed' }),
    ]);
    expect(JSON.stringify(lines)).toContain('ECONNREFUSED');
  });

  it('does not log a run stopped because the request was aborted', async () => {
    const { logger, lines } = capturedLogger();
    const aborted = AbortSignal.abort();
    const run = failuresAsResults(logger, 'user-1')('viewCart', failing(new Error('aborted')));
    expect(await run({}, { ...call, abortSignal: aborted })).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(lines).toEqual([]);
  });

  it("keeps fields of the call a client's failure card shows", async () => {
    const { logger } = capturedLogger();
    const run = failuresAsResults(logger, 'user-1')(
      'rememberMemory',
      failing(new MemwalError('timeout', 'MemWal /remember gave no answer')),
      ({ fact }: { fact: string }) => ({ text: fact }),
    );
    expect(await run({ fact: 'I prefer slim fit' }, call)).toEqual({
      success: false,
      code: 'UPSTREAM_ERROR',
      message: 'The memory service is unavailable right now',
      text: 'I prefer slim fit',
    });
  });
});

describe('a tool call the SDK could not run', () => {
  it('streams as a failure result, never as tool-output-error', async () => {
    const chunks: UIMessageChunk[] = [
      { type: 'tool-input-error', toolCallId: 'c1', toolName: 'addToCart', input: {}, errorText: 'bad' },
      { type: 'tool-output-error', toolCallId: 'c1', errorText: 'Invalid input for tool addToCart: ...' },
      { type: 'tool-output-available', toolCallId: 'c2', output: { success: true } },
    ];
    const out: UIMessageChunk[] = [];
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        chunks.forEach((chunk) => controller.enqueue(chunk));
        controller.close();
      },
    }).pipeThrough(unrunnableCallsAsResults());
    const reader = stream.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) out.push(next.value);
    expect(out).toEqual([
      chunks[0],
      {
        type: 'tool-output-available',
        toolCallId: 'c1',
        output: { success: false, code: 'VALIDATION_ERROR', message: expect.any(String) },
      },
      chunks[2],
    ]);
  });

  it('is stored as the same failure result', () => {
    const part = {
      type: 'dynamic-tool',
      toolName: 'addToCart',
      toolCallId: 'c1',
      state: 'output-error',
      input: {},
      errorText: 'Invalid input for tool addToCart: ...',
    } as UIMessage['parts'][number];
    expect(unrunnableCallAsResult(part)).toEqual({
      type: 'dynamic-tool',
      toolName: 'addToCart',
      toolCallId: 'c1',
      state: 'output-available',
      input: {},
      output: { success: false, code: 'VALIDATION_ERROR', message: expect.any(String) },
    });
    const done = {
      ...part,
      state: 'output-available',
      output: { success: true },
    } as UIMessage['parts'][number];
    expect(unrunnableCallAsResult(done)).toBe(done);
  });
});
