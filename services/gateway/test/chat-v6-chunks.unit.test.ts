import { describe, expect, it } from 'vitest';
import type { UIMessageChunk } from 'ai';
import { toV6Chunk } from '../src/chat/v6-chunks';

describe('toV6Chunk', () => {
  it('drops the keys later 6.x servers add, which ai 6.0.0 clients refuse', () => {
    const lateServerChunks = [
      {
        type: 'tool-input-start',
        toolCallId: 'c1',
        toolName: 'searchProducts',
        inputEncoding: 'json',
        toolMetadata: { a: 1 },
        providerMetadata: { openai: {} },
      },
      {
        type: 'tool-output-available',
        toolCallId: 'c1',
        output: { products: [] },
        providerMetadata: { openai: {} },
        toolMetadata: { a: 1 },
      },
      { type: 'tool-output-error', toolCallId: 'c1', errorText: 'no', toolMetadata: { a: 1 } },
      { type: 'abort', reason: 'client went away' },
    ] as UIMessageChunk[];
    expect(lateServerChunks.map(toV6Chunk)).toEqual([
      { type: 'tool-input-start', toolCallId: 'c1', toolName: 'searchProducts' },
      { type: 'tool-output-available', toolCallId: 'c1', output: { products: [] } },
      { type: 'tool-output-error', toolCallId: 'c1', errorText: 'no' },
      { type: 'abort' },
    ]);
  });

  it('keeps every field a 6.0.0 chunk has, and data parts with their id', () => {
    const chunks = [
      { type: 'start', messageId: 'm1' },
      { type: 'text-delta', id: 't1', delta: 'Hi' },
      { type: 'tool-input-available', toolCallId: 'c1', toolName: 'viewCart', input: {}, dynamic: false },
      { type: 'finish', finishReason: 'stop' },
      { type: 'data-memwal-activity', id: 'memwal-recall', data: { status: 'loading' }, transient: false },
    ] as UIMessageChunk[];
    expect(chunks.map(toV6Chunk)).toEqual(chunks);
  });

  it('sends an error chunk with errorText for AI SDK 6 readers and error for the spec table', () => {
    expect(toV6Chunk({ type: 'error', errorText: 'The assistant could not answer' })).toEqual({
      type: 'error',
      errorText: 'The assistant could not answer',
      error: 'The assistant could not answer',
    });
  });

  it('leaves out chunk kinds an older client cannot parse', () => {
    expect(toV6Chunk({ type: 'tool-approval-response' } as unknown as UIMessageChunk)).toBeUndefined();
  });
});
