import type { UIMessageChunk } from 'ai';

const providerFields = ['providerMetadata'] as const;
const toolInputFields = [
  'toolCallId',
  'toolName',
  'input',
  'providerExecuted',
  'providerMetadata',
  'dynamic',
  'title',
];

/**
 * The fields each chunk kind has in every ai 6.x client. ai 6.0.0 parses chunks with strict
 * schemas (an unknown key fails the whole stream); later 6.x servers add optional keys such as
 * `toolMetadata` or `inputEncoding`. Source: the chunk catalogue in shared/reference/ai-sdk-ui-stream.md.
 */
export const V6_CHUNK_FIELDS: Readonly<Record<string, readonly string[]>> = {
  start: ['messageId', 'messageMetadata'],
  'start-step': [],
  'finish-step': [],
  'text-start': ['id', ...providerFields],
  'text-delta': ['id', 'delta', ...providerFields],
  'text-end': ['id', ...providerFields],
  'reasoning-start': ['id', ...providerFields],
  'reasoning-delta': ['id', 'delta', ...providerFields],
  'reasoning-end': ['id', ...providerFields],
  'tool-input-start': ['toolCallId', 'toolName', 'providerExecuted', 'dynamic', 'title'],
  'tool-input-delta': ['toolCallId', 'inputTextDelta'],
  'tool-input-available': toolInputFields,
  'tool-input-error': [...toolInputFields, 'errorText'],
  'tool-output-available': ['toolCallId', 'output', 'providerExecuted', 'dynamic', 'preliminary'],
  'tool-output-error': ['toolCallId', 'errorText', 'providerExecuted', 'dynamic'],
  'tool-approval-request': ['approvalId', 'toolCallId'],
  'tool-output-denied': ['toolCallId'],
  'source-url': ['sourceId', 'url', 'title', ...providerFields],
  'source-document': ['sourceId', 'mediaType', 'title', 'filename', ...providerFields],
  file: ['url', 'mediaType', ...providerFields],
  'message-metadata': ['messageMetadata'],
  finish: ['finishReason', 'messageMetadata'],
  error: ['errorText'],
  abort: [],
};
export const V6_DATA_CHUNK_FIELDS: readonly string[] = ['id', 'data', 'transient'];

/** The chunk with only the keys every 6.x client knows; undefined for a kind older clients cannot parse. */
export function toV6Chunk(chunk: UIMessageChunk): UIMessageChunk | undefined {
  const fields = chunk.type.startsWith('data-') ? V6_DATA_CHUNK_FIELDS : V6_CHUNK_FIELDS[chunk.type];
  if (!fields) return undefined;
  const kept: Record<string, unknown> = { type: chunk.type };
  for (const field of fields) {
    const value = (chunk as Record<string, unknown>)[field];
    if (value !== undefined) kept[field] = value;
  }
  // The spec's chunk table names the message `error`; AI SDK 6 readers take `errorText`. Both are
  // sent. An ai 6.0.0 client (strict chunk schemas) rejects the extra key and ends the chat in its
  // error state with a validation message instead of the text: it ends in that state either way.
  if (chunk.type === 'error') kept.error = chunk.errorText;
  return kept as UIMessageChunk;
}

export function v6Chunks(): TransformStream<UIMessageChunk, UIMessageChunk> {
  return new TransformStream({
    transform(chunk, controller) {
      const kept = toV6Chunk(chunk);
      if (kept) controller.enqueue(kept);
    },
  });
}
