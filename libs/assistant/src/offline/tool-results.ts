import type { ProductSummary } from '@shop/product-search';
import type { z } from 'zod';
import {
  addToCartOutputSchema,
  checkoutOutputSchema,
  getProductDetailsOutputSchema,
  rememberPreferenceOutputSchema,
  removeFromCartOutputSchema,
  searchProductsInputSchema,
  searchProductsOutputSchema,
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

export function readSearch(exchange: ToolExchange): SearchSnapshot | undefined {
  const result = valueOf(exchange, 'searchProducts', searchProductsOutputSchema);
  const input = searchProductsInputSchema.safeParse(exchange.input);
  if (!result || !input.success) return undefined;
  return { input: input.data, products: result.products, total: result.total };
}

export const readDetails = (exchange: ToolExchange): ProductSummary | null | undefined =>
  valueOf(exchange, 'getProductDetails', getProductDetailsOutputSchema)?.product;

export const readCart = (exchange: ToolExchange): CartItemView[] | undefined =>
  valueOf(exchange, 'viewCart', viewCartOutputSchema)?.items;

export const readAdded = (exchange: ToolExchange): CartItemView | undefined =>
  valueOf(exchange, 'addToCart', addToCartOutputSchema)?.item;

export const readRemoved = (exchange: ToolExchange): string | undefined =>
  valueOf(exchange, 'removeFromCart', removeFromCartOutputSchema)?.itemId;

export const readOrder = (exchange: ToolExchange) => valueOf(exchange, 'checkout', checkoutOutputSchema);

export const readRemembered = (exchange: ToolExchange) =>
  valueOf(exchange, 'rememberPreference', rememberPreferenceOutputSchema);
