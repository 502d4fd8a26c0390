import { productCardOf, type ProductSearchResult, type ProductSummary } from '@shop/product-search';
import type { ShoppingToolOutput } from './tool-schemas';

/** What searchProducts answers for a search's result: the same page, its products as cards. */
export const searchProductsOutput = (result: ProductSearchResult): ShoppingToolOutput<'searchProducts'> => ({
  ...result,
  products: result.products.map(productCardOf),
});

/** What getProductDetails answers for the product found under an id, or for none. */
export const getProductDetailsOutput = (
  productId: string,
  product: ProductSummary | null,
): ShoppingToolOutput<'getProductDetails'> =>
  product ? productCardOf(product) : { productId, found: false };

/** What rememberMemory answers once the fact is stored: the existing frontend shows it as a card. */
export const rememberMemoryOutput = (fact: string): ShoppingToolOutput<'rememberMemory'> => ({
  success: true,
  text: fact,
  message: `Saved to memory: ${fact}`,
});

/** What recallMemories answers: the facts the store ranked for the question, most relevant first. */
export const recallMemoriesOutput = (
  memories: readonly { content: string; score?: number }[],
): ShoppingToolOutput<'recallMemories'> => ({
  success: true,
  memories: memories.map(({ content, score }) => ({ text: content, relevance: score ?? null })),
});
