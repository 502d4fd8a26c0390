import { z } from 'zod';

/**
 * A product as the gateway shows it and puts it in a cart: the cart item's snapshot fields
 * (productId, productName, price in integer USD cents, image, productUrl, retailer) plus what a
 * shopper compares on. `sizes` and `colors` only when the source knows them; `asin` only for a
 * marketplace product (the search service's), where it is also the productId.
 */
export const productSummarySchema = z.object({
  productId: z.string().min(1).max(255),
  productName: z.string().min(1).max(500),
  price: z.number().int().positive().describe('USD cents'),
  image: z.string(),
  productUrl: z.string(),
  retailer: z.string().min(1).max(255),
  brand: z.string(),
  category: z.string(),
  rating: z.number().min(0).max(5),
  reviewCount: z.number().int().min(0),
  sizes: z.array(z.string()).optional(),
  colors: z.array(z.string()).optional(),
  asin: z.string().optional(),
});
export type ProductSummary = z.infer<typeof productSummarySchema>;

export const productSearchResultSchema = z.object({
  products: z.array(productSummarySchema),
  total: z.number().int().min(0),
  page: z.number().int().min(1),
  limit: z.number().int().min(1),
  totalPage: z.number().int().min(0),
});
export type ProductSearchResult = z.infer<typeof productSearchResultSchema>;
