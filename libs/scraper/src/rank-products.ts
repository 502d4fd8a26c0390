import type { ListingFlags, NormalizedProduct } from './normalize-product';
import type { SearchQuery, SortBy } from './search-query';
import { searchTerms, termOverlap } from './text-relevance';

export interface RankCandidate {
  product: NormalizedProduct;
  listing: ListingFlags;
}

export type RankCriteria = Pick<
  SearchQuery,
  'q' | 'minPrice' | 'maxPrice' | 'sortBy' | 'prime' | 'condition'
>;

/** Review counts stop adding weight here, so a best-seller cannot bury a closer match on volume alone. */
const REVIEW_SATURATION = 10_000;

/**
 * score = 0.6·R + 0.25·(rating / 5) + 0.15·min(1, ln(1 + reviewCount) / ln(1 + 10 000))
 *
 * R, the relevance, is the share of the query's terms (see `searchTerms`) found in the product's text.
 * It carries most of the weight so an off-topic item cannot win on reviews; rating 0 means unrated and
 * adds nothing.
 */
export function productScore(relevance: number, rating: number, reviewCount: number): number {
  const reviews = Math.min(1, Math.log1p(reviewCount) / Math.log1p(REVIEW_SATURATION));
  return 0.6 * relevance + 0.25 * (rating / 5) + 0.15 * reviews;
}

/** `productScore` of a scraped product, whose relevant text is its title and brand. */
export function relevanceScore(product: NormalizedProduct, queryTerms: readonly string[]): number {
  return productScore(
    termOverlap(queryTerms, product.title, product.brand),
    product.rating,
    product.reviewCount,
  );
}

/**
 * Items the marketplace should have filtered out but did not: outside the price range, or saying they are
 * not Prime or not new when that was asked. An item that does not say is kept, since the marketplace URL
 * already carried the filter.
 */
function honoursFilters({ product, listing }: RankCandidate, criteria: RankCriteria): boolean {
  if (criteria.minPrice !== undefined && product.price < criteria.minPrice) return false;
  if (criteria.maxPrice !== undefined && product.price > criteria.maxPrice) return false;
  if (criteria.prime && listing.prime === false) return false;
  if (criteria.condition && listing.condition !== undefined && listing.condition !== criteria.condition)
    return false;
  return true;
}

export type Comparator<T> = (a: T, b: T) => number;

/** Orders by the first comparator that tells two items apart. */
export function inOrderOf<T>(...comparators: readonly Comparator<T>[]): Comparator<T> {
  return (a, b) => {
    for (const compare of comparators) {
      const difference = compare(a, b);
      if (difference !== 0) return difference;
    }
    return 0;
  };
}

interface Scored {
  product: NormalizedProduct;
  score: number;
  position: number;
}

/**
 * An explicit sort wins and the score breaks its ties. `newest` keeps the marketplace's order, which the
 * URL asked to be newest first: items carry no release date to sort on here.
 */
const PRIMARY_ORDER: Record<SortBy, Comparator<Scored>> = {
  price_asc: (a, b) => a.product.price - b.product.price,
  price_desc: (a, b) => b.product.price - a.product.price,
  rating: (a, b) => b.product.rating - a.product.rating,
  newest: (a, b) => a.position - b.position,
};

const byScore: Comparator<Scored> = (a, b) => b.score - a.score;
/** Equal scores still come out in one order, whatever order the scrape returned them in. */
const byAsin: Comparator<Scored> = (a, b) => a.product.asin.localeCompare(b.product.asin);

/**
 * The products to show, best first: filters re-applied, each ASIN once (its first listing, as sponsored
 * placements repeat organic ones), ordered by `sortBy` when given, else by `relevanceScore`.
 */
export function rankProducts(
  candidates: readonly RankCandidate[],
  criteria: RankCriteria,
): NormalizedProduct[] {
  const queryTerms = searchTerms(criteria.q);
  const seen = new Set<string>();
  const scored: Scored[] = [];
  candidates.forEach((candidate, position) => {
    if (seen.has(candidate.product.asin) || !honoursFilters(candidate, criteria)) return;
    seen.add(candidate.product.asin);
    scored.push({
      product: candidate.product,
      score: relevanceScore(candidate.product, queryTerms),
      position,
    });
  });
  const primary = criteria.sortBy ? [PRIMARY_ORDER[criteria.sortBy]] : [];
  return scored.sort(inOrderOf(...primary, byScore, byAsin)).map(({ product }) => product);
}
