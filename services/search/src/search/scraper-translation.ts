import { z } from 'zod';
import { productQuerySchema, ProductSummary } from '@shop/product-search';
import { NormalizedProduct, SearchQuery, searchQuerySchema } from '@shop/scraper';

/** The gateway's question (prices in cents) as a realtime search query (prices in dollars). */
export function searchQueryOf(query: z.output<typeof productQuerySchema>): SearchQuery {
  return searchQuerySchema.parse({
    q: query.query,
    page: query.page,
    limit: query.limit,
    minPrice: query.minPriceCents === undefined ? undefined : query.minPriceCents / 100,
    maxPrice: query.maxPriceCents === undefined ? undefined : query.maxPriceCents / 100,
    category: query.category,
    brand: query.brand,
    color: query.color,
    size: query.size,
    sortBy: query.sortBy,
  });
}

/** A scraped product as the gateway shows and carts it: integer cents, sold by the marketplace host. */
export function productSummaryOf(product: NormalizedProduct): ProductSummary {
  return {
    productId: product.asin,
    asin: product.asin,
    productName: product.title,
    price: Math.round(product.price * 100),
    image: product.imageUrl,
    productUrl: product.productUrl,
    retailer: new URL(product.productUrl).hostname.replace(/^www\./, ''),
    brand: product.brand,
    category: product.category,
    rating: product.rating,
    reviewCount: product.reviewCount,
  };
}
