import type {
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import type { Step } from './planner';

/** Ids derived from the prompt, so a step's ids are unique in a conversation and equal on a rerun. */
export interface OutputIds {
  text: string;
  toolCall: (index: number) => string;
}

const STOP: LanguageModelV3FinishReason = { unified: 'stop', raw: 'stop' };
const TOOL_CALLS: LanguageModelV3FinishReason = { unified: 'tool-calls', raw: 'tool_calls' };

/** Roughly four characters a token, as for English text: enough for usage accounting to move. */
const tokens = (characters: number) => Math.ceil(characters / 4);

const outputLength = (step: Step) =>
  step.kind === 'text'
    ? step.text.length
    : step.calls.reduce((sum, call) => sum + JSON.stringify(call.input).length, 0);

export function usageOf(step: Step, promptCharacters: number): LanguageModelV3Usage {
  const input = tokens(promptCharacters);
  const output = tokens(outputLength(step));
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

const encodedCalls = (step: Extract<Step, { kind: 'tool-calls' }>, ids: OutputIds) =>
  step.calls.map((call, index) => ({
    toolCallId: ids.toolCall(index),
    toolName: call.toolName,
    input: JSON.stringify(call.input),
  }));

export function finishReasonOf(step: Step): LanguageModelV3FinishReason {
  return step.kind === 'text' ? STOP : TOOL_CALLS;
}

/** doGenerate's content: the answer, or the tool calls with their input as JSON text. */
export function contentOf(step: Step, ids: OutputIds): LanguageModelV3Content[] {
  if (step.kind === 'text') return [{ type: 'text', text: step.text }];
  return encodedCalls(step, ids).map((call) => ({ type: 'tool-call', ...call }));
}

/**
 * doStream's parts, in the order a hosted model sends them: text word by word, or each tool call's input
 * announced, streamed and closed before the call itself; then the finish with its usage.
 */
export function streamPartsOf(
  step: Step,
  ids: OutputIds,
  usage: LanguageModelV3Usage,
): LanguageModelV3StreamPart[] {
  const body: LanguageModelV3StreamPart[] =
    step.kind === 'text'
      ? [
          { type: 'text-start', id: ids.text },
          ...(step.text.match(/\s*\S+\s*/g) ?? []).map((delta): LanguageModelV3StreamPart => ({
            type: 'text-delta',
            id: ids.text,
            delta,
          })),
          { type: 'text-end', id: ids.text },
        ]
      : encodedCalls(step, ids).flatMap((call): LanguageModelV3StreamPart[] => [
          { type: 'tool-input-start', id: call.toolCallId, toolName: call.toolName },
          { type: 'tool-input-delta', id: call.toolCallId, delta: call.input },
          { type: 'tool-input-end', id: call.toolCallId },
          { type: 'tool-call', ...call },
        ]);
  return [
    { type: 'stream-start', warnings: [] },
    ...body,
    { type: 'finish', finishReason: finishReasonOf(step), usage },
  ];
}
