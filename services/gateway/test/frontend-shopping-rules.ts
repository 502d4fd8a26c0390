import type { FrontendChatView } from './frontend-chat-reader';

/**
 * What the existing frontend reads at run time, none of it in its generated types, written as it
 * reads: the product cards it makes from tool results, the cart body a card posts, the checkout
 * answer it accepts, and the memory card it shows.
 */

/** The tools whose results it turns into product cards. */
const productTools = new Set([
  'searchProducts',
  'getProductDetails',
  'search_products',
  'showProducts',
  'get_product_details',
]);

export interface FrontendProduct {
  id: string;
  name: string;
  /** Cents: the card shows `price / 100`. */
  price: number | undefined;
  currency: 'USD' | 'USDC';
  imageUrl: string | undefined;
  marketplace: string | undefined;
  productUrl: string | undefined;
  asin: string | undefined;
  rating: number | undefined;
  reviewCount: number | undefined;
}

type Loose = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
const number = (value: unknown) => (typeof value === 'number' ? value : undefined);

/** The result itself if it is an array, else its first array of these, else the result as one product. */
export function rawProductsOf(result: unknown): unknown[] {
  if (Array.isArray(result)) return result;
  const loose = (result ?? {}) as Loose;
  for (const key of ['products', 'results', 'items', 'data']) {
    if (Array.isArray(loose[key])) return loose[key];
  }
  return [result];
}

/** A product without a non-empty string id and name is dropped. */
function normalised(raw: unknown): FrontendProduct | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const product = raw as Loose;
  if (typeof product.id !== 'string' || product.id === '') return undefined;
  if (typeof product.name !== 'string' || product.name === '') return undefined;
  return {
    id: product.id,
    name: product.name,
    price: number(product.price),
    currency: product.currency === 'USDC' ? 'USDC' : 'USD',
    imageUrl: text(product.imageUrl) ?? text(product.image),
    marketplace: text(product.marketplace) ?? text(product.retailer) ?? text(product.brand),
    productUrl: text(product.product_url) ?? text(product.productUrl),
    asin: text(product.asin),
    rating: number(product.rating),
    reviewCount: number(product.reviewCount),
  };
}

/** Every tool result of a product tool in the turn, by its call, before normalising. */
export function productToolResults(view: FrontendChatView): { toolName: string; result: unknown }[] {
  return view.toolCalls
    .filter(({ toolName, toolCallId }) => productTools.has(toolName) && view.toolResults.has(toolCallId))
    .map(({ toolName, toolCallId }) => ({ toolName, result: view.toolResults.get(toolCallId) }));
}

export function productCardsOf(result: unknown): FrontendProduct[] {
  return rawProductsOf(result).flatMap((raw) => normalised(raw) ?? []);
}

/** What a card's add-to-cart button posts to POST /api/cart when the shopper picked no size or colour. */
export function cartBodyOf(product: FrontendProduct) {
  return {
    productId: product.id,
    productName: product.name,
    price: product.price,
    image: product.imageUrl,
    size: '',
    color: '',
    productUrl: product.productUrl ?? (product.asin ? `https://www.amazon.com/dp/${product.asin}` : ''),
    retailer: product.marketplace,
  };
}

export const CHECKOUT_REFUSED = 'Checkout response missing order or payment details';

/** The checkout answer it accepts, or the message it shows the shopper instead. */
export function acceptCheckout(answer: unknown): string | { orderId: string; crossmintOrderId: string } {
  const loose = (answer ?? {}) as Loose;
  const fields = ['orderId', 'crossmintOrderId', 'phase', 'serializedTransaction', 'walletAddress'];
  if (!fields.every((field) => typeof loose[field] === 'string')) return CHECKOUT_REFUSED;
  return { orderId: loose.orderId as string, crossmintOrderId: loose.crossmintOrderId as string };
}

/** The results it shows a "memory stored" card for: those of rememberMemory calls. */
export function memoryResultsOf(view: FrontendChatView): unknown[] {
  return view.toolCalls
    .filter(({ toolName }) => toolName === 'rememberMemory')
    .map(({ toolCallId }) => view.toolResults.get(toolCallId));
}
