import { z } from 'zod';

export const refreshedSessionSchema = z.object({
  jwt: z.string().min(1),
  /** The old refresh secret stops working once this one is issued. */
  refresh: z.object({ secret: z.string().min(1), expiresAt: z.string() }),
  user: z.object({ id: z.string(), email: z.string().optional() }),
});
export type RefreshedSession = z.output<typeof refreshedSessionSchema>;
