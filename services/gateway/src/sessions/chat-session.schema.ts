import { z } from 'zod';
import { apiSchema } from '@shop/http';

export const chatSessionSchema = apiSchema(
  'ChatSession',
  z.object({
    id: z.uuid(),
    userId: z.uuid(),
    title: z.string().optional().describe('absent for an untitled session'),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
export type ChatSessionResponse = z.infer<typeof chatSessionSchema>;

export const chatMessageSchema = apiSchema(
  'ChatMessage',
  z.object({
    id: z.string(),
    role: z.enum(['user', 'assistant']),
    parts: z.array(z.record(z.string(), z.unknown())).describe('message parts such as {type: "text", text}'),
    createdAt: z.string(),
  }),
);
export type ChatMessageResponse = z.infer<typeof chatMessageSchema>;

export const sessionListSchema = apiSchema(
  'SessionList',
  z.object({ sessions: z.array(chatSessionSchema), total: z.number().int() }),
);

export const sessionWithMessagesSchema = apiSchema(
  'SessionWithMessages',
  chatSessionSchema.extend({ messages: z.array(chatMessageSchema) }),
);

export const titleSchema = z.string().trim().min(1).max(255);
export const sessionIdParams = z.object({ id: z.uuid() });
