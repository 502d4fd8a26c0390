import { z } from 'zod';

/**
 * An expected failure of a tool, returned as its result rather than thrown: the stream then carries a
 * normal tool output, which every client renders, and the model reads `message` to tell the shopper.
 * `code` is stable (the REST route's error code where the tool mirrors one).
 */
export const toolFailureResultSchema = z.object({
  success: z.literal(false),
  code: z.string(),
  message: z.string(),
});
export type ToolFailureResult = z.infer<typeof toolFailureResultSchema>;

export const toolFailureResult = (code: string, message: string): ToolFailureResult => ({
  success: false,
  code,
  message,
});

/** A tool's result: its own success shape, marked `success: true`, or a failure. */
export const toolResultSchema = <S extends z.ZodRawShape>(shape: S) =>
  z.union([z.object({ success: z.literal(true), ...shape }), toolFailureResultSchema]);
