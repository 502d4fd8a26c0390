import { z } from 'zod';

/** The relayer's JSON, as its REST API documents it (snake case). */

/** 202 with a background job (current relayers) or 200 with the stored blob (0.0.1 relayers). */
export const rememberResponseSchema = z.union([
  z.object({ job_id: z.string(), status: z.string() }),
  z.object({ blob_id: z.string() }),
]);

export const recallResponseSchema = z.object({
  results: z.array(z.object({ blob_id: z.string(), text: z.string(), distance: z.number() })),
  total: z.number().optional(),
});

/** POST /api/forget: the index rows of the namespace it deleted (0 when it had none). */
export const forgetResponseSchema = z.object({ deleted: z.number(), namespace: z.string().optional() });

export const errorBodySchema = z.object({
  message: z.string().optional(),
  code: z.string().optional(),
  error: z.string().optional(),
});
