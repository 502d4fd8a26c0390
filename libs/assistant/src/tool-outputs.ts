import { productCardOf, type ProductSearchResult, type ProductSummary } from '@shop/product-search';
import { formatUsd } from './offline/money';
import { TOOL_FAILURE_CODES, toolFailed } from './tool-result';
import type { CartItemOutput, CartItemView, ShoppingToolOutput, ShoppingToolSuccess } from './tool-schemas';

/**
 * What each tool answers, built once for the gateway's tools and the tests. Where the original backend's
 * tools answered a field (`success`, `message`, `priceFormatted`, `total`, `totalFormatted`, `itemCount`),
 * these answer it too.
 */

/** What searchProducts answers for a search's result: the same page, its products as cards. */
export const searchProductsOutput = (result: ProductSearchResult): ShoppingToolSuccess<'searchProducts'> => ({
  success: true,
  ...result,
  products: result.products.map(productCardOf),
});

/** What getProductDetails answers for the product found under an id, or for none. */
export const getProductDetailsOutput = (
  productId: string,
  product: ProductSummary | null,
): ShoppingToolOutput<'getProductDetails'> =>
  product
    ? { success: true, ...productCardOf(product) }
    : toolFailed(TOOL_FAILURE_CODES.productNotFound, 'That product is no longer available.', { productId });

const cartItemOutput = (item: CartItemView): CartItemOutput => ({
  ...item,
  priceFormatted: formatUsd(item.price),
});

export function viewCartOutput(items: readonly CartItemView[]): ShoppingToolSuccess<'viewCart'> {
  const total = items.reduce((sum, item) => sum + item.price, 0);
  return {
    success: true,
    items: items.map(cartItemOutput),
    total,
    totalFormatted: formatUsd(total),
    itemCount: items.length,
  };
}

export const addToCartOutput = (item: CartItemView): ShoppingToolSuccess<'addToCart'> => ({
  success: true,
  item: cartItemOutput(item),
  message: `Added "${item.productName}" to the cart`,
});

export const removeFromCartOutput = (itemId: string): ShoppingToolSuccess<'removeFromCart'> => ({
  success: true,
  itemId,
  removed: true,
  message: 'Item removed from the cart',
});

export const checkoutOutput = (order: {
  orderId: string;
  providerOrderId: string;
  phase: string;
  walletAddress: string;
}): ShoppingToolSuccess<'checkout'> => ({
  success: true,
  ...order,
  message: 'Order created: approve the payment with the one-time code the payment provider emails you',
});

/** What rememberMemory answers once the fact is stored: the existing frontend shows it as a card. */
export const rememberMemoryOutput = (fact: string): ShoppingToolSuccess<'rememberMemory'> => ({
  success: true,
  text: fact,
  message: `Saved to memory: ${fact}`,
});

/** What recallMemories answers: the facts the store ranked for the question, most relevant first. */
export const recallMemoriesOutput = (
  memories: readonly { content: string; score?: number }[],
): ShoppingToolSuccess<'recallMemories'> => ({
  success: true,
  memories: memories.map(({ content, score }) => ({ text: content, relevance: score ?? null })),
});
