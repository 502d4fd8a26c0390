import { z } from 'zod';
import { CONTEXT_BUDGET_CHARS } from './context-budget';

export const MAX_USER_TEXT = 8000;
const MAX_MESSAGES = 500;
const MAX_PARTS = 200;

const role = z.enum(['system', 'user', 'assistant']);
const messageId = z.string().min(1).max(200);

/** An AI SDK UI message as `useChat` sends it; only the text parts of the new turn are read. */
const uiMessage = z.object({
  id: messageId.optional(),
  role,
  parts: z.array(z.looseObject({ type: z.string().min(1).max(100) })).max(MAX_PARTS),
});

/** The plain form of the spec's sample clients. */
const plainMessage = z.object({ id: messageId.optional(), role, content: z.string() });

const chatMessage = z.union([uiMessage, plainMessage]);
type ChatMessageInput = z.infer<typeof chatMessage>;

function textOf(message: ChatMessageInput): string {
  if ('content' in message) return message.content.trim();
  return message.parts
    .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
    .join('\n')
    .trim();
}

export const chatRequestBody = z
  .object({
    messages: z
      .array(chatMessage)
      .min(1)
      .max(MAX_MESSAGES)
      .describe(
        `The conversation as the client holds it; the last message is the new user turn. Earlier messages are context: those from before the stored history of the session (all of them for a session without history; else those before its first stored message, matched by id or else by role and text) are given to the model ahead of the stored history (the latest that fit ${CONTEXT_BUDGET_CHARS} characters), never stored and never repeated. The stored history itself is not replaced by what a client sends; system messages and non-text parts are ignored.`,
      ),
    sessionId: z.uuid().optional().describe('Omit to start a new session'),
  })
  .superRefine(({ messages }, ctx) => {
    const last = messages.at(-1);
    if (!last) return;
    const path = ['messages', messages.length - 1];
    if (last.role !== 'user') {
      ctx.addIssue({ code: 'custom', path, message: 'the last message must be the new user turn' });
      return;
    }
    const text = textOf(last);
    if (text.length === 0) ctx.addIssue({ code: 'custom', path, message: 'the new user turn has no text' });
    if (text.length > MAX_USER_TEXT)
      ctx.addIssue({
        code: 'custom',
        path,
        message: `the new user turn exceeds ${MAX_USER_TEXT} characters`,
      });
  });

export type ChatRequest = z.infer<typeof chatRequestBody>;

export interface UserTurn {
  /** The client's id for the message, which makes a retried request store it once. */
  id: string | undefined;
  text: string;
}

/** The new user turn of a validated request. */
export function userTurnOf(request: ChatRequest): UserTurn {
  const last = request.messages.at(-1)!;
  return { id: last.id, text: textOf(last) };
}

/** An earlier message of the request, as context for the model: only what a client may assert. */
export interface ContextMessage {
  id: string | undefined;
  role: 'user' | 'assistant';
  text: string;
}

/**
 * The request's messages before the new turn. A client cannot speak for the system prompt, and its
 * tool parts prove nothing, so only the text of its user and assistant messages is kept.
 */
export function requestContextOf(request: ChatRequest): ContextMessage[] {
  return request.messages.slice(0, -1).flatMap((message) => {
    if (message.role === 'system') return [];
    const text = textOf(message);
    return text ? [{ id: message.id, role: message.role, text }] : [];
  });
}
