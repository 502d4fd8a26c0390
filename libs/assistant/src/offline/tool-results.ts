import { productSummarySchema, type ProductSummary } from '@shop/product-search';
import { z } from 'zod';
import {
  cartItemSchema,
  compareProductsOutputSchema,
  getOrdersOutputSchema,
  recallMemoriesOutputSchema,
  searchProductsInputSchema,
  type CartItemView,
  type SearchProductsInput,
  type ShoppingToolName,
} from '../tool-schemas';
import type { ToolExchange } from './conversation';

/**
 * Typed views of tool results. A result that lacks the fields read here is treated as absent: the
 * offline model then says less rather than guess at a shape. Only the fields read are required, so
 * results stored before a field was added (`success`, `priceFormatted`, `message`) read the same.
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

const cartRead = z.object({ items: z.array(cartItemSchema) });
const addedRead = z.object({ item: cartItemSchema });
const removedRead = z.object({ itemId: z.string() });
const orderRead = z.object({ orderId: z.string(), phase: z.string() });
const rememberedRead = z.object({ text: z.string() });

export const readCart = (exchange: ToolExchange): CartItemView[] | undefined =>
  valueOf(exchange, 'viewCart', cartRead)?.items;

export const readAdded = (exchange: ToolExchange): CartItemView | undefined =>
  valueOf(exchange, 'addToCart', addedRead)?.item;

export const readRemoved = (exchange: ToolExchange): string | undefined =>
  valueOf(exchange, 'removeFromCart', removedRead)?.itemId;

export const readOrder = (exchange: ToolExchange) => valueOf(exchange, 'checkout', orderRead);

export const readRemembered = (exchange: ToolExchange) => valueOf(exchange, 'rememberMemory', rememberedRead);

/*
 * A failure result never reaches these readers (it is a failed outcome, see readConversation), so the
 * new tools' results are read by their success shape.
 */
const [ordersRead] = getOrdersOutputSchema.options;
const [comparisonRead] = compareProductsOutputSchema.options;
const [recalledRead] = recallMemoriesOutputSchema.options;

export const readOrders = (exchange: ToolExchange) => valueOf(exchange, 'getOrders', ordersRead);

export interface ComparisonSnapshot {
  products: ProductSummary[];
  differences: { aspect: string; values: string[] }[];
  shared: { aspect: string; value: string }[];
}

export function readComparison(exchange: ToolExchange): ComparisonSnapshot | undefined {
  const comparison = valueOf(exchange, 'compareProducts', comparisonRead);
  if (!comparison) return undefined;
  const products = comparison.products.map(productOf);
  if (!products.every((product): product is ProductSummary => product !== undefined)) return undefined;
  return { products, differences: comparison.differences, shared: comparison.shared };
}

export const readRecalled = (exchange: ToolExchange) =>
  valueOf(exchange, 'recallMemories', recalledRead)?.memories;
