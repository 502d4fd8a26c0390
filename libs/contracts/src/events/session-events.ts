import { z } from 'zod';
import { defineEvent } from '../event-definition';

export const SessionCreated = defineEvent({
  type: 'SessionCreated',
  version: 1,
  aggregate: 'session',
  description: 'A chat session was opened by a user.',
  schema: z.object({ userId: z.uuid(), title: z.string().min(1).max(255).nullable() }),
  personalData: ['title'],
});

export const SessionRenamed = defineEvent({
  type: 'SessionRenamed',
  version: 1,
  aggregate: 'session',
  description: 'A chat session got a new title (by the user or generated after the first exchange).',
  schema: z.object({ title: z.string().min(1).max(255), generated: z.boolean() }),
  personalData: ['title'],
});

export const SessionDeleted = defineEvent({
  type: 'SessionDeleted',
  version: 1,
  aggregate: 'session',
  description: "A chat session and its messages were deleted; the session's data key is destroyed after it.",
  schema: z.object({}),
});

export const ChatMessageAppended = defineEvent({
  type: 'ChatMessageAppended',
  version: 1,
  aggregate: 'session',
  description: 'A user or assistant message, with its parts (text, tool calls, tool results).',
  schema: z.object({
    messageId: z.string().min(1).max(200),
    role: z.enum(['user', 'assistant']),
    parts: z.array(z.record(z.string(), z.unknown())),
  }),
  personalData: ['parts'],
});

export const sessionEvents = [SessionCreated, SessionRenamed, SessionDeleted, ChatMessageAppended] as const;
