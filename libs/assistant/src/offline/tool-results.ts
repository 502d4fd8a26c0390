import { productSummarySchema, type ProductSummary } from '@shop/product-search';
import type { z } from 'zod';
import {
  addToCartOutputSchema,
  checkoutOutputSchema,
  compareProductsOutputSchema,
  getOrdersOutputSchema,
  recallMemoriesOutputSchema,
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

/** A tool's successful value, before any shape is assumed. */
function rawValueOf(exchange: ToolExchange, toolName: ShoppingToolName): unknown {
  return exchange.toolName === toolName && exchange.outcome?.ok ? exchange.outcome.value : undefined;
}

function valueOf<S extends z.ZodType>(
  exchange: ToolExchange,
  toolName: ShoppingToolName,
  schema: S,
): z.output<S> | undefined {
  const parsed = schema.safeParse(rawValueOf(exchange, toolName));
  return parsed.success ? parsed.data : undefined;
}

export interface SearchSnapshot {
  input: SearchProductsInput;
  products: ProductSummary[];
  total: number;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A product as a tool returned it, under today's field names or a card's (`id`, `name`, `priceCents`,
 * `imageUrl`, `marketplace`), so a change of the product shape on the gateway's side leaves the model
 * reading it.
 */
function productOf(value: unknown): ProductSummary | undefined {
  if (!isRecord(value)) return undefined;
  const parsed = productSummarySchema.safeParse({
    ...value,
    productId: value.productId ?? value.id,
    productName: value.productName ?? value.name,
    price: value.priceCents ?? value.price,
    image: value.image ?? value.imageUrl,
    retailer: value.retailer ?? value.marketplace,
  });
  return parsed.success ? parsed.data : undefined;
}

export function readSearch(exchange: ToolExchange): SearchSnapshot | undefined {
  const result = rawValueOf(exchange, 'searchProducts');
  const input = searchProductsInputSchema.safeParse(exchange.input);
  if (!isRecord(result) || !Array.isArray(result.products) || !input.success) return undefined;
  const products = result.products.map(productOf);
  if (!products.every((product): product is ProductSummary => product !== undefined)) return undefined;
  const total = typeof result.total === 'number' ? result.total : products.length;
  return { input: input.data, products, total };
}

/**
 * The product of a details result, `{ product }` or the product itself; null when it is gone
 * (`{ product: null }`, null, or `{ productId, found: false }`).
 */
export function readDetails(exchange: ToolExchange): ProductSummary | null | undefined {
  const result = rawValueOf(exchange, 'getProductDetails');
  if (isRecord(result) && result.found === false) return null;
  const product = isRecord(result) && 'product' in result ? result.product : result;
  return product === null ? null : productOf(product);
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

/** A result of one of the tools that answer `success: true` or a failure; the failure reads as absent. */
function succeeded<S extends z.ZodType>(
  exchange: ToolExchange,
  toolName: ShoppingToolName,
  schema: S,
): Extract<z.output<S>, { success: true }> | undefined {
  const value = valueOf(exchange, toolName, schema) as { success?: unknown } | undefined;
  return value?.success === true ? (value as Extract<z.output<S>, { success: true }>) : undefined;
}

export const readOrders = (exchange: ToolExchange) => succeeded(exchange, 'getOrders', getOrdersOutputSchema);

export interface ComparisonSnapshot {
  products: ProductSummary[];
  differences: { aspect: string; values: string[] }[];
  shared: { aspect: string; value: string }[];
}

export function readComparison(exchange: ToolExchange): ComparisonSnapshot | undefined {
  const result = rawValueOf(exchange, 'compareProducts');
  const parsed = compareProductsOutputSchema.safeParse(result);
  if (!parsed.success || !parsed.data.success) return undefined;
  const products = parsed.data.products.map(productOf);
  if (!products.every((product): product is ProductSummary => product !== undefined)) return undefined;
  return { products, differences: parsed.data.differences, shared: parsed.data.shared };
}

export const readRecalled = (exchange: ToolExchange) =>
  succeeded(exchange, 'recallMemories', recallMemoriesOutputSchema)?.memories;
