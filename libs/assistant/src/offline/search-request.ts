import { searchTerms } from '@shop/scraper';
import type { SearchProductsInput } from '../tool-schemas';
import { takePriceRange } from './price-words';
import { TextScanner } from './text-scanner';
import { takeColor, takeSize } from './variant-words';
import {
  ACTION_WORDS,
  BRANDS,
  CATEGORY_WORDS,
  FILLER_WORDS,
  GIFT_WORDS,
  NEEDS,
  PRODUCT_NOUNS,
} from './vocabulary';

type SortBy = NonNullable<SearchProductsInput['sortBy']>;

const SORTS: readonly [RegExp, SortBy][] = [
  [/\b(?:sort(?:ed)?|order(?:ed)?)\s+by\s+(?:lowest\s+)?price\b/, 'price_asc'],
  [/\b(?:sort(?:ed)?|order(?:ed)?)\s+by\s+(?:ratings?|reviews?)\b/, 'rating'],
  [/\b(?:most expensive|priciest|highest[- ]priced?|premium|luxury|high[- ]end)\b/, 'price_desc'],
  [
    /\b(?:cheapest|least expensive|lowest[- ]priced?|most affordable|cheap|inexpensive|affordable|budget)\b/,
    'price_asc',
  ],
  [/\b(?:best[- ]rated|top[- ]rated|highest[- ]rated|best[- ]reviewed|most popular|best)\b/, 'rating'],
  [/\b(?:newest|latest|new arrivals?|most recent|just released)\b/, 'newest'],
];

const BRAND_PATTERNS = BRANDS.map(
  (brand) =>
    [new RegExp(`(?<![\\w])${brand.toLowerCase().replace(/[.&]/g, '\\$&')}(?![\\w])`), brand] as const,
);

const CATEGORY = new RegExp(`\\b(${Object.keys(CATEGORY_WORDS).join('|')})\\b`);

/** "cheaper" / "more expensive": a price relative to what the shopper was just shown. */
export type RelativePrice = 'lower' | 'higher';

const RELATIVE_PRICES: readonly [RegExp, RelativePrice][] = [
  [/\b(?:cheaper|less expensive|lower[- ]priced|more affordable|lower price)\b/, 'lower'],
  [/\b(?:pricier|more expensive|higher[- ]priced|higher price)\b/, 'higher'],
];

const MATCHING = /\bmatching\b|\bto match\b|\bthat go(?:es)? with (?:it|them)\b/;

/** A message about a gift: who it is for is not what to search for, what they like is. */
const GIFT = /\b(?:gifts?|presents?)\b|\bwho\s+(?:likes|loves|enjoys|is into)\b/;

/**
 * The offline model asks for as many results as it shows, so "the fifth one" is always a product the
 * shopper saw and "show me more" is simply the next page.
 */
export const RESULTS_PER_PAGE = 5;

export interface SearchRequest {
  input: SearchProductsInput;
  /** The message named what to look for (a product word, a category or a brand), not only limits. */
  hasSubject: boolean;
  /** The message named a product word: "buy running shoes" is a search, "buy it" is not. */
  namesProduct: boolean;
  /** "cheaper" without an amount: below (or above) the prices the shopper saw last. */
  relativePrice?: RelativePrice;
  /** The message asks for a gift; its query holds only what the recipient likes. */
  gift: boolean;
  /** "matching socks": in the colour of what the shopper just chose. */
  matching: boolean;
}

function takeSort(scanner: TextScanner): SortBy | undefined {
  for (const [pattern, sortBy] of SORTS) if (scanner.take(pattern)) return sortBy;
  return undefined;
}

function takeBrand(scanner: TextScanner): string | undefined {
  for (const [pattern, brand] of BRAND_PATTERNS) if (scanner.take(pattern)) return brand;
  return undefined;
}

function takeRelativePrice(scanner: TextScanner): RelativePrice | undefined {
  for (const [pattern, relative] of RELATIVE_PRICES) if (scanner.take(pattern)) return relative;
  return undefined;
}

/** What is left once filters are out: the shopper's own words for the thing, fillers dropped. */
function queryWords(rest: string, gift: boolean): string[] {
  return rest
    .split(/[^a-z0-9'&-]+/)
    .map((word) => word.replace(/^['-]+|['-]+$/g, ''))
    .filter(
      (word) =>
        word.length > 0 &&
        !FILLER_WORDS.has(word) &&
        !ACTION_WORDS.has(word) &&
        !(gift && GIFT_WORDS.has(word)) &&
        !/^\d+(?:\.\d+)?$/.test(word),
    );
}

/** Reads a shopping request into searchProducts' input: "cheapest black hoodie in M" -> hoodie, black, M, price_asc. */
export function parseSearchRequest(message: string): SearchRequest {
  const scanner = new TextScanner(message);
  const gift = GIFT.test(scanner.remaining);
  const matching = scanner.take(MATCHING) !== undefined;
  const { minPrice, maxPrice } = takePriceRange(scanner);
  const relativePrice = takeRelativePrice(scanner);
  const sortBy = takeSort(scanner);
  const size = takeSize(scanner);
  const color = takeColor(scanner);
  const brand = takeBrand(scanner);
  const categoryWord = scanner.take(CATEGORY)?.[1];
  const category = categoryWord === undefined ? undefined : CATEGORY_WORDS[categoryWord];
  const words = queryWords(scanner.remaining, gift).join(' ');
  const named = searchTerms(`${words} ${categoryWord ?? ''}`).some((term) => PRODUCT_NOUNS.has(term));
  const need = named ? undefined : NEEDS.find(([pattern]) => pattern.test(scanner.remaining))?.[1];
  const query = need ?? words;
  const namesProduct = named || need !== undefined;
  const input: SearchProductsInput = {
    query,
    ...(category !== undefined && { category }),
    ...(brand !== undefined && { brand }),
    ...(color !== undefined && { color }),
    ...(size !== undefined && { size }),
    ...(minPrice !== undefined && { minPrice }),
    ...(maxPrice !== undefined && { maxPrice }),
    ...(sortBy !== undefined && { sortBy }),
    limit: RESULTS_PER_PAGE,
  };
  return {
    input,
    hasSubject: query.length > 0 || category !== undefined || brand !== undefined,
    namesProduct,
    ...(relativePrice !== undefined && minPrice === undefined && maxPrice === undefined && { relativePrice }),
    gift,
    matching,
  };
}
