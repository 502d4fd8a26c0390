import type { ProductQuery } from '@shop/product-search';
import type { SearchProductsInput } from './tool-schemas';

const toCents = (usd: number) => Math.round(usd * 100);

/**
 * The product search's question for a searchProducts call: shoppers and models speak dollars, the
 * search compares cents. A range given upside down ("between 120 and 50") is turned round rather than
 * refused, since the shopper's meaning is plain.
 */
export function productQueryOf(input: SearchProductsInput): ProductQuery {
  const { minPrice, maxPrice, ...rest } = input;
  const [low, high] =
    minPrice !== undefined && maxPrice !== undefined && minPrice > maxPrice
      ? [maxPrice, minPrice]
      : [minPrice, maxPrice];
  return {
    ...rest,
    ...(low !== undefined && { minPriceCents: toCents(low) }),
    ...(high !== undefined && { maxPriceCents: toCents(high) }),
  };
}
