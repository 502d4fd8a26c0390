import type { LanguageModelV3Prompt, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import type { ChatMessage } from './chat-request';

const textOf = (content: string | readonly { type: string; text?: unknown }[] | null | undefined): string =>
  typeof content === 'string'
    ? content
    : (content ?? [])
        .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
        .join('\n');

/**
 * The wire carries no error flag on a tool result. The shop's tools answer JSON objects, a failure
 * included (`{success: false, code, message}`, which the planner reads as one); a call the client's
 * SDK could not run answers its error's text, so anything but a JSON object or array reads as a
 * failure's message.
 */
function outputOf(content: string): LanguageModelV3ToolResultOutput {
  try {
    const value: unknown = JSON.parse(content);
    if (typeof value === 'object' && value !== null) return { type: 'json', value: value as never };
  } catch {
    // not JSON: a failure's message
  }
  return { type: 'error-text', value: content };
}

/** A validated conversation in the AI SDK's prompt form, which the offline planner reads. */
export function promptOf(messages: readonly ChatMessage[]): LanguageModelV3Prompt {
  const toolNames = new Map<string, string>();
  return messages.map((message): LanguageModelV3Prompt[number] => {
    switch (message.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: textOf(message.content) };
      case 'user':
        return { role: 'user', content: [{ type: 'text', text: textOf(message.content) }] };
      case 'assistant': {
        const text = textOf(message.content);
        return {
          role: 'assistant',
          content: [
            ...(text ? [{ type: 'text' as const, text }] : []),
            ...(message.tool_calls ?? []).map((call) => {
              toolNames.set(call.id, call.function.name);
              return {
                type: 'tool-call' as const,
                toolCallId: call.id,
                toolName: call.function.name,
                input: parseArguments(call.function.arguments),
              };
            }),
          ],
        };
      }
      case 'tool':
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: message.tool_call_id,
              toolName: toolNames.get(message.tool_call_id) ?? '',
              output: outputOf(textOf(message.content)),
            },
          ],
        };
    }
  });
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
