import { z } from 'zod';
import { productSummarySchema, type ProductSummary } from './product-summary';

/**
 * A product as every chat tool returns it: the summary, whose fields the agent copies into addToCart
 * and the /test page shows, under the names the existing web frontend reads as well. That frontend
 * makes a card only of a product with `id` and `name`, shows `price / 100` and posts `id`, `price`,
 * `imageUrl` and `marketplace` back to POST /api/cart as productId, price, image and retailer: so
 * they are the summary's own values, the price still integer USD cents.
 */
export const productCardSchema = productSummarySchema.extend({
  id: z.string().min(1).max(255).describe('the productId'),
  name: z.string().min(1).max(500).describe('the productName'),
  currency: z.literal('USD').describe('of price, which is in cents'),
  imageUrl: z.string().describe('the image'),
  marketplace: z.string().min(1).max(255).describe('the retailer'),
});
export type ProductCard = z.infer<typeof productCardSchema>;

export function productCardOf(product: ProductSummary): ProductCard {
  return {
    ...product,
    id: product.productId,
    name: product.productName,
    currency: 'USD',
    imageUrl: product.image,
    marketplace: product.retailer,
  };
}
