import type { LanguageModelV3Prompt, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';

export type ToolOutcome = { ok: true; value: unknown } | { ok: false; error: string; code?: string };

/** One tool call of the conversation and, once it ran, what came back. */
export interface ToolExchange {
  toolCallId: string;
  toolName: string;
  input: unknown;
  outcome?: ToolOutcome;
}

export interface Conversation {
  /** Every system message, joined. */
  system: string;
  /** The text of the latest user message: the request being answered. */
  lastUserText: string;
  /** Tool exchanges of earlier requests, oldest first: what "the second one" and the known cart come from. */
  earlier: ToolExchange[];
  /** Tool exchanges since the latest user message: the steps already taken for this request. */
  current: ToolExchange[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A tool that answers its failure as a result, `{ success: false, code, message }`, failed all the same. */
function resultOf(value: unknown): ToolOutcome {
  if (isRecord(value) && value.success === false && typeof value.message === 'string') {
    return { ok: false, error: value.message, ...(typeof value.code === 'string' && { code: value.code }) };
  }
  return { ok: true, value };
}

function outcomeOf(output: LanguageModelV3ToolResultOutput): ToolOutcome {
  switch (output.type) {
    case 'json':
    case 'text':
      return resultOf(output.value);
    case 'content':
      return {
        ok: true,
        value: output.value.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n'),
      };
    case 'error-text':
      return { ok: false, error: output.value };
    case 'error-json':
      return { ok: false, error: JSON.stringify(output.value) };
    case 'execution-denied':
      return { ok: false, error: output.reason ?? 'the action was not approved' };
  }
}

/**
 * Reads the prompt the SDK sends on every step (earlier turns as converted from UI messages, then this
 * request's tool calls and results) into exchanges split at the latest user message.
 */
export function readConversation(prompt: LanguageModelV3Prompt): Conversation {
  const system: string[] = [];
  let lastUserText = '';
  let exchanges: ToolExchange[] = [];
  let earlier: ToolExchange[] = [];
  const byId = new Map<string, ToolExchange>();

  for (const message of prompt) {
    if (message.role === 'system') {
      system.push(message.content);
      continue;
    }
    if (message.role === 'user') {
      lastUserText = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
      earlier = [...earlier, ...exchanges];
      exchanges = [];
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'tool-call') {
        const exchange: ToolExchange = {
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: part.input,
        };
        byId.set(part.toolCallId, exchange);
        exchanges.push(exchange);
      } else if (part.type === 'tool-result') {
        const exchange = byId.get(part.toolCallId);
        if (exchange) exchange.outcome = outcomeOf(part.output);
      }
    }
  }
  return { system: system.join('\n'), lastUserText, earlier, current: exchanges };
}
