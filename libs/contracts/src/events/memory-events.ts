import { z } from 'zod';
import { defineEvent } from '../event-definition';

export const PreferenceRemembered = defineEvent({
  type: 'PreferenceRemembered',
  version: 1,
  aggregate: 'memory',
  description:
    "A lasting shopper preference was saved for the chat agent (the aggregate id is the user id); the project's own memory store is built from these.",
  schema: z.object({
    fact: z.string().min(1).max(500),
    namespace: z.string().min(1).max(100),
    source: z.enum(['chat']),
  }),
  personalData: ['fact'],
});

export const memoryEvents = [PreferenceRemembered] as const;
