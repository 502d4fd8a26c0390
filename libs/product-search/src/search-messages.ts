import { z } from 'zod';
import { productIdSchema, productQuerySchema } from './product-query';
import { productSearchResultSchema, productSummarySchema } from './product-summary';

/**
 * Request-reply subjects of the search service's NATS transport. They carry the event subject
 * prefix, so each deployment (and each test) has its own, and sit outside the stream's
 * `<prefix>.>` so requests are never stored as events.
 */
export function productSearchSubjects(subjectPrefix: string): { search: string; product: string } {
  return {
    search: `_rpc.${subjectPrefix}.search.products`,
    product: `_rpc.${subjectPrefix}.search.product`,
  };
}

export const searchProductsRequestSchema = productQuerySchema;
export const findProductRequestSchema = z.strictObject({ productId: productIdSchema });

export const replyErrorSchema = z.object({ code: z.string().min(1), message: z.string() });
export type ReplyError = z.infer<typeof replyErrorSchema>;

/** Every reply: a result, or the error the HTTP API would have answered. Handlers never throw across the wire. */
function replySchema<T extends z.ZodType>(result: T) {
  return z.discriminatedUnion('ok', [
    z.object({ ok: z.literal(true), result }),
    z.object({ ok: z.literal(false), error: replyErrorSchema }),
  ]);
}

export const searchProductsReplySchema = replySchema(productSearchResultSchema);
export const findProductReplySchema = replySchema(productSummarySchema.nullable());
export type SearchProductsReply = z.infer<typeof searchProductsReplySchema>;
export type FindProductReply = z.infer<typeof findProductReplySchema>;
