import type { SearchRunner } from './apify-search-runner';
import { buildMarketplaceSearchUrl } from './marketplace-url';
import { normalizeProduct, readListingFlags, type NormalizedProduct } from './normalize-product';
import { rankProducts, type RankCandidate } from './rank-products';
import type { SearchQuery } from './search-query';

/** Products scraped per search: enough for a few pages at the largest page size. */
export const DEFAULT_MAX_RESULTS = 100;

export interface SearchProductsOptions {
  runner: SearchRunner;
  marketplaceBaseUrl?: string;
  maxResults?: number;
}

export interface SearchProductsResult {
  products: NormalizedProduct[];
  total: number;
  page: number;
  limit: number;
  totalPage: number;
}

/**
 * query -> marketplace URL -> actor run -> normalised, ranked products -> the requested page.
 *
 * Pages are cut from one ranked list of up to `maxResults` products, so the marketplace is always asked
 * for its first listing page: passing `page` on as well would page twice, and one listing URL per filter
 * set lets a caching runner serve every page and page size of a search from a single scrape.
 */
export async function searchProducts(
  query: SearchQuery,
  { runner, marketplaceBaseUrl, maxResults = DEFAULT_MAX_RESULTS }: SearchProductsOptions,
): Promise<SearchProductsResult> {
  const { page, limit, ...filters } = query;
  const listingUrl = buildMarketplaceSearchUrl(filters, marketplaceBaseUrl);
  const items = await runner.scrapeListing(listingUrl, { maxResults });
  const candidates = items.flatMap((raw): RankCandidate[] => {
    const product = normalizeProduct(raw);
    return product ? [{ product, listing: readListingFlags(raw) }] : [];
  });
  const ranked = rankProducts(candidates, query);
  const start = (page - 1) * limit;
  return {
    products: ranked.slice(start, start + limit),
    total: ranked.length,
    page,
    limit,
    totalPage: Math.ceil(ranked.length / limit),
  };
}
