import {
  inOrderOf,
  productScore,
  searchTerms,
  SORT_OPTIONS,
  termOverlap,
  type Comparator,
  type SortBy,
} from '@shop/scraper';
import { z } from 'zod';
import { CATALOG_PRODUCTS, type CatalogProduct } from './catalog-products';

const cents = z.number().int().min(0);
const filterText = z.string().trim().min(1).max(100);

export const catalogSearchSchema = z
  .strictObject({
    query: z.string().trim().max(200),
    category: filterText.optional(),
    brand: filterText.optional(),
    color: filterText.optional(),
    size: filterText.optional(),
    minPriceCents: cents.optional(),
    maxPriceCents: cents.optional(),
    sortBy: z.enum(SORT_OPTIONS).optional(),
    page: z.number().int().min(1).default(1),
    limit: z.number().int().min(1).max(50).default(20),
  })
  .superRefine((search, ctx) => {
    const { minPriceCents: min, maxPriceCents: max } = search;
    if (min !== undefined && max !== undefined && min > max) {
      ctx.addIssue({
        code: 'custom',
        path: ['maxPriceCents'],
        message: 'maxPriceCents must not be below minPriceCents',
      });
    }
  });

export type CatalogSearch = z.input<typeof catalogSearchSchema>;

export interface CatalogSearchResult {
  products: CatalogProduct[];
  total: number;
  page: number;
  limit: number;
  totalPage: number;
}

const BY_ID = new Map(CATALOG_PRODUCTS.map((product) => [product.productId, product]));

/** Product ids are upper case; a lower-cased id from a URL or a model still finds its product. */
export function getCatalogProduct(productId: string): CatalogProduct | undefined {
  return BY_ID.get(productId.trim().toUpperCase());
}

const sameText = (a: string, b: string) => a.localeCompare(b, 'en', { sensitivity: 'base' }) === 0;

function matchesFilters(product: CatalogProduct, search: z.output<typeof catalogSearchSchema>): boolean {
  const { category, brand, color, size, minPriceCents, maxPriceCents } = search;
  return (
    (category === undefined || sameText(product.category, category)) &&
    (brand === undefined || sameText(product.brand, brand)) &&
    (color === undefined || product.colors.some((candidate) => sameText(candidate, color))) &&
    (size === undefined || product.sizes.some((candidate) => sameText(candidate, size))) &&
    (minPriceCents === undefined || product.priceCents >= minPriceCents) &&
    (maxPriceCents === undefined || product.priceCents <= maxPriceCents)
  );
}

interface Scored {
  product: CatalogProduct;
  relevance: number;
  score: number;
}

const PRIMARY_ORDER: Record<SortBy, Comparator<Scored>> = {
  price_asc: (a, b) => a.product.priceCents - b.product.priceCents,
  price_desc: (a, b) => b.product.priceCents - a.product.priceCents,
  rating: (a, b) => b.product.rating - a.product.rating,
  newest: (a, b) => b.product.listedOn.localeCompare(a.product.listedOn),
};
const byScore: Comparator<Scored> = (a, b) => b.score - a.score;
const byProductId: Comparator<Scored> = (a, b) => a.product.productId.localeCompare(b.product.productId);

/**
 * Searches the mock catalogue the way realtime search ranks scraped products (`productScore`), with
 * relevance counted over name, brand, category, product type and colours. Unlike the marketplace, the
 * catalogue has no search engine in front of it, so it also decides what matches: products whose relevance
 * reaches half the best relevance of the search. That keeps "red running shoes" from listing every red
 * hat, yet tolerates query words no product has ("comfortable"). An empty query matches everything.
 * Filters compare case-insensitively; an explicit `sortBy` orders first and the score breaks ties.
 */
export function searchCatalog(input: CatalogSearch): CatalogSearchResult {
  const search = catalogSearchSchema.parse(input);
  const terms = searchTerms(search.query);
  const filtered = CATALOG_PRODUCTS.filter((product) => matchesFilters(product, search));
  const scored = filtered.map((product): Scored => {
    const relevance =
      terms.length === 0
        ? 1
        : termOverlap(
            terms,
            product.name,
            product.brand,
            product.category,
            product.productType,
            ...product.colors,
          );
    return { product, relevance, score: productScore(relevance, product.rating, product.reviewCount) };
  });
  const best = Math.max(0, ...scored.map(({ relevance }) => relevance));
  const matches = scored.filter(({ relevance }) => relevance > 0 && relevance >= best / 2);
  const primary = search.sortBy ? [PRIMARY_ORDER[search.sortBy]] : [];
  matches.sort(inOrderOf(...primary, byScore, byProductId));
  const start = (search.page - 1) * search.limit;
  return {
    products: matches.slice(start, start + search.limit).map(({ product }) => product),
    total: matches.length,
    page: search.page,
    limit: search.limit,
    totalPage: Math.ceil(matches.length / search.limit),
  };
}
