import type { UIMessage } from 'ai';
import { DomainError } from '@shop/domain';
import type { ChatMessageResponse } from '../sessions/chat-session.schema';
import type { ContextMessage } from './chat-request.schema';
import { CONTEXT_BUDGET_CHARS } from './context-budget';

export const toUIMessage = (message: ChatMessageResponse): UIMessage => ({
  id: message.id,
  role: message.role,
  parts: message.parts as unknown as UIMessage['parts'],
});

export const textOfMessage = (message: UIMessage): string =>
  message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');

export interface Conversation {
  /** The request's context from before the session's history, then the stored turns before the new one. */
  earlier: UIMessage[];
  /** The new user turn as it is (or already was) stored. */
  userMessage: UIMessage;
  /** True when the session already holds this user message: the request is a retry. */
  retried: boolean;
}

/** The latest messages whose texts fit the budget together. */
function withinBudget(messages: readonly ContextMessage[]): ContextMessage[] {
  let total = 0;
  let start = messages.length;
  while (start > 0 && total + messages[start - 1]!.text.length <= CONTEXT_BUDGET_CHARS) {
    start -= 1;
    total += messages[start]!.text.length;
  }
  return messages.slice(start);
}

/**
 * The request's earlier messages from before the session's history (the latest that fit
 * CONTEXT_BUDGET_CHARS): all of them when the session holds none, else those before the first
 * stored message (found by id, or by role and text for clients that send no ids). A request that does not contain the stored history gives no context:
 * the session is the record of what was said, and a client cannot rewrite it.
 */
function contextBeforeSession(stored: readonly ChatMessageResponse[], context: readonly ContextMessage[]) {
  const first = stored[0];
  const firstText = first && textOfMessage(toUIMessage(first)).trim();
  const end = first
    ? context.findIndex((message) =>
        message.id ? message.id === first.id : message.role === first.role && message.text === firstText,
      )
    : context.length;
  return withinBudget(context.slice(0, Math.max(end, 0))).map((message, index): UIMessage => ({
    id: message.id ?? `context-${index}`,
    role: message.role,
    parts: [{ type: 'text', text: message.text }],
  }));
}

/**
 * Places the new user turn in the stored session, after the request's context from before the
 * session's history. A retried turn (its id already stored) is answered from the history it had the first
 * time, and keeps its first text.
 */
export function placeUserTurn(
  stored: readonly ChatMessageResponse[],
  turn: { id: string; text: string },
  context: readonly ContextMessage[] = [],
): Conversation {
  const unheld = contextBeforeSession(stored, context);
  const index = stored.findIndex((message) => message.id === turn.id);
  if (index < 0) {
    return {
      earlier: [...unheld, ...stored.map(toUIMessage)],
      userMessage: { id: turn.id, role: 'user', parts: [{ type: 'text', text: turn.text }] },
      retried: false,
    };
  }
  const existing = stored[index]!;
  if (existing.role !== 'user') {
    throw new DomainError(
      'conflict',
      'CONFLICT',
      'The message id is already used by another message in this session',
    );
  }
  return {
    earlier: [...unheld, ...stored.slice(0, index).map(toUIMessage)],
    userMessage: toUIMessage(existing),
    retried: true,
  };
}
