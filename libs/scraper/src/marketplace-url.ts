import type { SearchQuery, SortBy } from './search-query';

export const DEFAULT_MARKETPLACE_SEARCH_URL = 'https://www.amazon.com/s';

export type MarketplaceSearch = Pick<SearchQuery, 'q'> &
  Partial<
    Pick<
      SearchQuery,
      | 'category'
      | 'brand'
      | 'color'
      | 'size'
      | 'minPrice'
      | 'maxPrice'
      | 'sortBy'
      | 'prime'
      | 'condition'
      | 'page'
    >
  >;

const SORT_PARAMETER: Record<SortBy, string> = {
  price_asc: 'price-asc-rank',
  price_desc: 'price-desc-rank',
  rating: 'review-rank',
  newest: 'date-desc-rank',
};

export const PRIME_REFINEMENT = 'p_85:2470955011';
export const CONDITION_NEW_REFINEMENT = 'p_n_condition-type:6461716011';

/**
 * The marketplace's own search URL for a query. The marketplace has no stable URL filters for category,
 * brand, colour or size across departments, so those words join the keywords in `k` (after q, in that
 * order). Refinements share one `rh` parameter, comma-separated, as the marketplace's own filter links do
 * (`rh=p_85:2470955011,p_n_condition-type:6461716011`, encoded `%3A` and `%2C`): a second `rh` would be
 * ignored rather than combined.
 */
export function buildMarketplaceSearchUrl(
  search: MarketplaceSearch,
  baseUrl: string = DEFAULT_MARKETPLACE_SEARCH_URL,
): string {
  const url = new URL(baseUrl);
  const params = url.searchParams;
  const keywords = [search.q, search.category, search.brand, search.color, search.size]
    .map((part) => part?.trim())
    .filter((part): part is string => Boolean(part));
  params.set('k', keywords.join(' '));
  if (search.minPrice !== undefined) params.set('low-price', String(search.minPrice));
  if (search.maxPrice !== undefined) params.set('high-price', String(search.maxPrice));
  if (search.sortBy) params.set('s', SORT_PARAMETER[search.sortBy]);
  const refinements = [
    search.prime ? PRIME_REFINEMENT : undefined,
    search.condition === 'new' ? CONDITION_NEW_REFINEMENT : undefined,
  ].filter((refinement): refinement is string => refinement !== undefined);
  if (refinements.length > 0) params.set('rh', refinements.join(','));
  if (search.page !== undefined && search.page > 1) params.set('page', String(search.page));
  return url.toString();
}
