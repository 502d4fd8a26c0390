import type { UIMessage } from 'ai';
import { DomainError } from '@shop/domain';
import type { ChatMessageResponse } from '../sessions/chat-session.schema';

export const toUIMessage = (message: ChatMessageResponse): UIMessage => ({
  id: message.id,
  role: message.role,
  parts: message.parts as unknown as UIMessage['parts'],
});

export const textOfMessage = (message: UIMessage): string =>
  message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');

export interface Conversation {
  /** The stored turns before the new one, oldest first. */
  earlier: UIMessage[];
  /** The new user turn as it is (or already was) stored. */
  userMessage: UIMessage;
  /** True when the session already holds this user message: the request is a retry. */
  retried: boolean;
}

/**
 * Places the new user turn in the stored session. A retried turn (its id already stored) is
 * answered from the history it had the first time, and keeps its first text.
 */
export function placeUserTurn(
  stored: readonly ChatMessageResponse[],
  turn: { id: string; text: string },
): Conversation {
  const index = stored.findIndex((message) => message.id === turn.id);
  if (index < 0) {
    return {
      earlier: stored.map(toUIMessage),
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
    earlier: stored.slice(0, index).map(toUIMessage),
    userMessage: toUIMessage(existing),
    retried: true,
  };
}
