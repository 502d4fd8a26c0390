import { z } from 'zod';
import { invalidRequest } from './openai-error';
import { checkToolSchema } from './tool-schema-check';

const textPart = z.object({ type: z.literal('text'), text: z.string() }).loose();
const contentParts = z.array(z.looseObject({ type: z.string() })).min(1);
const toolCall = z.object({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

const message = z.discriminatedUnion('role', [
  z.object({
    role: z.enum(['system', 'developer']),
    content: z.union([z.string(), z.array(textPart).min(1)]),
    name: z.string().optional(),
  }),
  z.object({
    role: z.literal('user'),
    content: z.union([z.string(), contentParts]),
    name: z.string().optional(),
  }),
  z.object({
    role: z.literal('assistant'),
    content: z.union([z.string(), z.array(textPart), z.null()]).optional(),
    tool_calls: z.array(toolCall).min(1).optional(),
    refusal: z.string().nullable().optional(),
    name: z.string().optional(),
  }),
  z.object({
    role: z.literal('tool'),
    tool_call_id: z.string().min(1),
    content: z.union([z.string(), z.array(textPart).min(1)]),
  }),
]);
export type ChatMessage = z.infer<typeof message>;

const functionName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must match ^[a-zA-Z0-9_-]{1,64}$');
const tool = z.object({
  type: z.literal('function'),
  function: z.object({
    name: functionName,
    description: z.string().optional(),
    parameters: z.unknown().optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

/** The request parameters this server knows; like OpenAI it refuses any other. */
export const chatCompletionRequest = z.strictObject({
  model: z.string().min(1),
  messages: z.array(message).min(1),
  stream: z.boolean().nullable().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullable().optional(),
  tools: z.array(tool).optional(),
  tool_choice: z
    .union([
      z.enum(['none', 'auto', 'required']),
      z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) }),
    ])
    .optional(),
  parallel_tool_calls: z.boolean().optional(),
  n: z.literal(1).optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  max_tokens: z.number().int().positive().nullable().optional(),
  max_completion_tokens: z.number().int().positive().nullable().optional(),
  presence_penalty: z.number().min(-2).max(2).nullable().optional(),
  frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
  stop: z
    .union([z.string(), z.array(z.string()).max(4)])
    .nullable()
    .optional(),
  seed: z.number().int().nullable().optional(),
  user: z.string().optional(),
  logit_bias: z.record(z.string(), z.number()).nullable().optional(),
  logprobs: z.boolean().nullable().optional(),
  top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
  response_format: z.looseObject({ type: z.enum(['text', 'json_object', 'json_schema']) }).optional(),
  store: z.boolean().nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
  service_tier: z.string().nullable().optional(),
  reasoning_effort: z.string().nullable().optional(),
  safety_identifier: z.string().optional(),
  prompt_cache_key: z.string().optional(),
});
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequest>;

const pathOf = (path: readonly PropertyKey[]) =>
  path.reduce<string>(
    (out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)),
    '',
  );

/** Parses the body or throws the 400 OpenAI answers, naming the first offending parameter. */
export function parseChatRequest(body: unknown): ChatCompletionRequest {
  const parsed = chatCompletionRequest.safeParse(body);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    if (issue?.code === 'unrecognized_keys')
      throw invalidRequest(`Unrecognized request argument supplied: ${issue.keys.join(', ')}`);
    const param = pathOf(issue?.path ?? []);
    throw invalidRequest(`Invalid value for '${param}': ${issue?.message ?? 'invalid'}.`, param || null);
  }
  checkTools(parsed.data);
  checkConversation(parsed.data.messages);
  return parsed.data;
}

function checkTools({ tools = [], tool_choice }: ChatCompletionRequest): void {
  const seen = new Set<string>();
  tools.forEach(({ function: fn }, index) => {
    if (seen.has(fn.name))
      throw invalidRequest(`Duplicate function name '${fn.name}' in tools.`, `tools[${index}].function.name`);
    seen.add(fn.name);
    if (fn.parameters !== undefined)
      checkToolSchema(fn.name, fn.parameters, fn.strict === true, `tools[${index}].function.parameters`);
  });
  if (typeof tool_choice === 'object' && !seen.has(tool_choice.function.name))
    throw invalidRequest(
      `Tool choice '${tool_choice.function.name}' not found in 'tools' parameter.`,
      'tool_choice',
    );
  if (tool_choice !== undefined && tool_choice !== 'none' && tools.length === 0)
    throw invalidRequest(
      "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      'tool_choice',
    );
}

/**
 * The conversation rules OpenAI enforces: every tool call is answered by tool messages right after
 * the assistant message that made it, a tool message answers such a call, and call ids are unique.
 */
function checkConversation(messages: ChatMessage[]): void {
  const used = new Set<string>();
  let unanswered: { index: number; ids: Set<string> } | undefined;
  messages.forEach((entry, index) => {
    if (entry.role === 'tool') {
      if (!unanswered?.ids.delete(entry.tool_call_id))
        throw invalidRequest(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${index}].role`,
        );
      return;
    }
    if (unanswered && unanswered.ids.size > 0)
      throw invalidRequest(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...unanswered.ids].join(', ')}`,
        `messages.[${unanswered.index}].role`,
      );
    unanswered = undefined;
    if (entry.role !== 'assistant') return;
    const hasContent =
      typeof entry.content === 'string' ? entry.content.length > 0 : (entry.content?.length ?? 0) > 0;
    if (!hasContent && !entry.tool_calls)
      throw invalidRequest(
        `Invalid value for 'content': expected a string, got null.`,
        `messages.[${index}].content`,
      );
    if (!entry.tool_calls) return;
    for (const call of entry.tool_calls) {
      if (used.has(call.id))
        throw invalidRequest(
          `Duplicate tool_call id '${call.id}' in messages.`,
          `messages.[${index}].tool_calls`,
        );
      used.add(call.id);
    }
    unanswered = { index, ids: new Set(entry.tool_calls.map(({ id }) => id)) };
  });
  if (unanswered && unanswered.ids.size > 0)
    throw invalidRequest(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...unanswered.ids].join(', ')}`,
      `messages.[${unanswered.index}].role`,
    );
}
