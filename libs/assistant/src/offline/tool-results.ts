import { productSearchResultSchema, type ProductSummary } from '@shop/product-search';
import type { z } from 'zod';
import {
  addToCartOutputSchema,
  checkoutOutputSchema,
  getProductDetailsOutputSchema,
  rememberMemoryOutputSchema,
  removeFromCartOutputSchema,
  searchProductsInputSchema,
  viewCartOutputSchema,
  type CartItemView,
  type SearchProductsInput,
  type ShoppingToolName,
} from '../tool-schemas';
import type { ToolExchange } from './conversation';

/**
 * Typed views of tool results. A result that does not match its tool's output schema is treated as
 * absent: the offline model then says less rather than guess at a shape.
 */

function valueOf<S extends z.ZodType>(
  exchange: ToolExchange,
  toolName: ShoppingToolName,
  schema: S,
): z.output<S> | undefined {
  if (exchange.toolName !== toolName || !exchange.outcome?.ok) return undefined;
  const parsed = schema.safeParse(exchange.outcome.value);
  return parsed.success ? parsed.data : undefined;
}

export interface SearchSnapshot {
  input: SearchProductsInput;
  products: ProductSummary[];
  total: number;
}

/** Read as summaries, so a search stored before its products were cards still reads. */
export function readSearch(exchange: ToolExchange): SearchSnapshot | undefined {
  const result = valueOf(exchange, 'searchProducts', productSearchResultSchema);
  const input = searchProductsInputSchema.safeParse(exchange.input);
  if (!result || !input.success) return undefined;
  return { input: input.data, products: result.products, total: result.total };
}

/** The product, null for an id that names none, undefined when there is no such result. */
export function readDetails(exchange: ToolExchange): ProductSummary | null | undefined {
  const details = valueOf(exchange, 'getProductDetails', getProductDetailsOutputSchema);
  return details && 'found' in details ? null : details;
}

export const readCart = (exchange: ToolExchange): CartItemView[] | undefined =>
  valueOf(exchange, 'viewCart', viewCartOutputSchema)?.items;

export const readAdded = (exchange: ToolExchange): CartItemView | undefined =>
  valueOf(exchange, 'addToCart', addToCartOutputSchema)?.item;

export const readRemoved = (exchange: ToolExchange): string | undefined =>
  valueOf(exchange, 'removeFromCart', removeFromCartOutputSchema)?.itemId;

export const readOrder = (exchange: ToolExchange) => valueOf(exchange, 'checkout', checkoutOutputSchema);

export const readRemembered = (exchange: ToolExchange) =>
  valueOf(exchange, 'rememberMemory', rememberMemoryOutputSchema);
