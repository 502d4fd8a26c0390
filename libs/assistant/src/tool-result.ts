import { z } from 'zod';

/**
 * The one shape of a chat tool's answer. A tool never throws: a refusal (cart full, unfunded
 * checkout, unknown product) or an unexpected fault is a normal result with `success: false`, so the
 * stream carries `tool-output-available` for it (clients that read only that kind, like the existing
 * frontend, then replace their placeholder) and the stored part replays the same on reload. Both
 * models read the failure back from the result: the hosted one from its JSON, the offline one
 * through `readToolFailure`.
 */

/** Codes of failures that have no REST error of their own; a shop refusal keeps its REST code. */
export const TOOL_FAILURE_CODES = {
  productNotFound: 'PRODUCT_NOT_FOUND',
  unavailable: 'UPSTREAM_ERROR',
  invalidInput: 'VALIDATION_ERROR',
  internal: 'INTERNAL_ERROR',
} as const;

export const toolFailureSchema = z.object({
  success: z.literal(false),
  code: z
    .string()
    .describe(
      'Stable: the error code the REST route answers for the same refusal, or one of TOOL_FAILURE_CODES',
    ),
  message: z.string().describe('What happened, in words the shopper can read'),
});
export type ToolFailureResult = z.infer<typeof toolFailureSchema>;

/** A failed tool's result. `extra` keeps fields a client card shows for the failure too (the fact of a memory). */
export const toolFailed = <E extends Record<string, unknown>>(
  code: string,
  message: string,
  extra?: E,
): ToolFailureResult & E => ({ ...(extra as E), success: false, code, message });

/** The failure a tool's result reports, whoever made it; undefined for a success or any other value. */
export function readToolFailure(value: unknown): ToolFailureResult | undefined {
  const parsed = toolFailureSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** A tool's output schema: its successful shape (marked `success: true`), or a failure. */
export const toolOutputSchema = <Shape extends z.ZodRawShape>(success: z.ZodObject<Shape>) =>
  z.union([success.extend({ success: z.literal(true) }), toolFailureSchema.loose()]);
