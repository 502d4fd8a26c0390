import type { OfflineAnswer } from '@shop/assistant';

/** Argument text is streamed in pieces this long, so a client must join a call from several deltas. */
const ARGUMENT_PIECE = 24;

export interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

const usageOf = ({ usage }: OfflineAnswer) => {
  const prompt = usage.inputTokens.total ?? 0;
  const completion = usage.outputTokens.total ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
};

const finishReasonOf = ({ step }: OfflineAnswer) => (step.kind === 'text' ? 'stop' : 'tool_calls');

const toolCallsOf = ({ step, ids }: OfflineAnswer) =>
  step.kind === 'tool-calls'
    ? step.calls.map((call, index) => ({
        id: ids.toolCall(index),
        type: 'function' as const,
        function: { name: call.toolName, arguments: JSON.stringify(call.input) },
      }))
    : [];

/** The non-streaming answer (`stream` false or absent). */
export function completionOf(answer: OfflineAnswer, meta: CompletionMeta) {
  const toolCalls = toolCallsOf(answer);
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.step.kind === 'text' ? answer.step.text : null,
          refusal: null,
          ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
        },
        logprobs: null,
        finish_reason: finishReasonOf(answer),
      },
    ],
    usage: usageOf(answer),
  };
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let start = 0; start < text.length; start += size) out.push(text.slice(start, start + size));
  return out;
}

/**
 * The streamed answer's chunks in the order OpenAI sends them: the role first, then the text word by
 * word or each tool call opened (id, name) and its arguments in pieces, then the finish reason, then
 * (when asked with `stream_options.include_usage`) the usage in a chunk without choices.
 */
export function completionChunksOf(answer: OfflineAnswer, meta: CompletionMeta, includeUsage: boolean) {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  const { step } = answer;
  const body =
    step.kind === 'text'
      ? [
          chunk({ role: 'assistant', content: '', refusal: null }),
          ...(step.text.match(/\s*\S+\s*/g) ?? []).map((word) => chunk({ content: word })),
        ]
      : [
          chunk({ role: 'assistant', content: null, refusal: null }),
          ...toolCallsOf(answer).flatMap((call, index) => [
            chunk({
              tool_calls: [
                {
                  index,
                  id: call.id,
                  type: 'function',
                  function: { name: call.function.name, arguments: '' },
                },
              ],
            }),
            ...pieces(call.function.arguments, ARGUMENT_PIECE).map((piece) =>
              chunk({ tool_calls: [{ index, function: { arguments: piece } }] }),
            ),
          ]),
        ];
  return [
    ...body,
    chunk({}, finishReasonOf(answer)),
    ...(includeUsage
      ? [
          {
            id: meta.id,
            object: 'chat.completion.chunk',
            created: meta.created,
            model: meta.model,
            choices: [],
            usage: usageOf(answer),
          },
        ]
      : []),
  ];
}
