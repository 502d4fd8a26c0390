import { searchTerms } from '@shop/scraper';
import type { SearchProductsInput } from '../tool-schemas';
import { PRODUCT_NOUNS } from './vocabulary';

/** What a broader search leaves out: one filter, or the words around the product's name. */
export type Loosening = { kind: 'filter'; name: string } | { kind: 'words'; query: string };

export interface BroaderSearch {
  input: SearchProductsInput;
  loosened: Loosening;
}

const namesProduct = (word: string) => searchTerms(word).some((term) => PRODUCT_NOUNS.has(term));

/**
 * The search to offer when one found nothing: without one filter (colour, then size, brand, price
 * limit), or, with no filter left, the query's product words alone ("purple unicorn slippers" ->
 * "slippers"). Undefined when nothing is left to loosen.
 */
export function broaderSearch(input: SearchProductsInput): BroaderSearch | undefined {
  const { page: _page, ...search } = input;
  if (search.color !== undefined) {
    const { color: _color, ...rest } = search;
    return { input: rest, loosened: { kind: 'filter', name: 'color' } };
  }
  if (search.size !== undefined) {
    const { size: _size, ...rest } = search;
    return { input: rest, loosened: { kind: 'filter', name: 'size' } };
  }
  if (search.brand !== undefined) {
    const { brand: _brand, ...rest } = search;
    return { input: rest, loosened: { kind: 'filter', name: 'brand' } };
  }
  if (search.minPrice !== undefined || search.maxPrice !== undefined) {
    const { minPrice: _min, maxPrice: _max, ...rest } = search;
    return { input: rest, loosened: { kind: 'filter', name: 'price limit' } };
  }
  const words = search.query.split(/\s+/).filter(Boolean);
  const products = words.filter(namesProduct);
  if (products.length === 0 || products.length === words.length) return undefined;
  const query = products.join(' ');
  return { input: { ...search, query }, loosened: { kind: 'words', query } };
}
