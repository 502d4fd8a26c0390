import { z } from 'zod';
import { apiSchema } from '@shop/http';
import { productIdSchema } from '@shop/product-search';
import type { NormalizedProduct } from '@shop/scraper';

/** The spec's Product (NormalizedProduct): the interface is the definition, this is its wire description. */
export const productSchema = apiSchema(
  'Product',
  z.object({
    asin: z.string().regex(/^[A-Z0-9]{10}$/),
    title: z.string(),
    price: z.number().describe('decimal currency units'),
    originalPrice: z.number().describe('list price; equals price when not discounted'),
    rating: z.number().min(0).max(5).describe('0 when unrated'),
    reviewCount: z.number().int().min(0),
    imageUrl: z.string(),
    productUrl: z.string(),
    brand: z.string(),
    category: z.string(),
    availability: z.boolean(),
  }),
) satisfies z.ZodType<NormalizedProduct>;

export const realtimeSearchSchema = apiSchema(
  'SearchResult',
  z.object({
    products: z.array(productSchema),
    total: z.number().int().min(0),
    page: z.number().int().min(1),
    limit: z.number().int().min(1),
    totalPage: z.number().int().min(0),
    source: z.literal('realtime'),
    query: z.string(),
    executionTime: z.number().int().min(0).describe('milliseconds'),
  }),
);
export type RealtimeSearchData = z.infer<typeof realtimeSearchSchema>;

export const asinParamsSchema = z.object({ asin: productIdSchema });

export const scraperHealthSchema = z.object({ status: z.enum(['healthy', 'unavailable']) });
export type ScraperHealth = z.infer<typeof scraperHealthSchema>['status'];

/** The health route's 503: the same data as its 200, in the failure envelope. */
export const unavailableEnvelopeSchema = z.object({
  data: z.object({ status: z.literal('unavailable') }),
  status: z.literal('SERVICE_UNAVAILABLE'),
  code: z.literal(503),
  message: z.string(),
});
