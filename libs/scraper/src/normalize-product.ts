/** A marketplace product as the search API returns it; prices in decimal currency units. */
export interface NormalizedProduct {
  asin: string;
  title: string;
  price: number;
  originalPrice: number;
  rating: number;
  reviewCount: number;
  imageUrl: string;
  productUrl: string;
  brand: string;
  category: string;
  availability: boolean;
}

export type ProductCondition = 'new' | 'used' | 'refurbished';

/** What a listing says about the filters the marketplace applies; absent when the item does not say. */
export interface ListingFlags {
  prime?: boolean;
  condition?: ProductCondition;
}

type Item = Record<string, unknown>;

const isRecord = (value: unknown): value is Item =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads a dotted path from nested objects, or from a flat key that contains the dots: the dataset API
 * returns projected fields flattened (`item["offers.price"]`).
 */
function read(item: Item, path: string): unknown {
  if (path in item) return item[path];
  let current: unknown = item;
  for (const key of path.split('.')) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** The first of the paths whose value parses; the paths are the field's known spellings, best first. */
function firstParsed<T>(
  item: Item,
  paths: readonly string[],
  parse: (value: unknown) => T | undefined,
): T | undefined {
  for (const path of paths) {
    const parsed = parse(read(item, path));
    if (parsed !== undefined) return parsed;
  }
  return undefined;
}

const roundToCents = (value: number) => Math.round(value * 100) / 100;

/**
 * Digit groups joined by "." or ",", or by a space or apostrophe before exactly three digits
 * ("1 299,99", "1'299.99"): a space before a different count of digits starts another number.
 */
const NUMBER_IN_TEXT = /\d+(?:[.,]\d+|['\u00a0\u202f ]\d{3}(?!\d))*/;

/**
 * The separator that is last, or the only one when it appears once and is not followed by exactly three
 * digits, is the decimal point; every other "." or "," groups thousands. Prices have two decimals, so
 * "1,299" and "1.299" are both one thousand two hundred and ninety-nine.
 */
function parsePriceText(text: string): number | undefined {
  const match = NUMBER_IN_TEXT.exec(text);
  if (!match || text.slice(0, match.index).includes('-')) return undefined;
  const digits = match[0].replace(/['\u00a0\u202f ]/g, '');
  const lastDot = digits.lastIndexOf('.');
  const lastComma = digits.lastIndexOf(',');
  let decimalAt = Math.max(lastDot, lastComma);
  if (lastDot < 0 || lastComma < 0) {
    const separator = lastDot >= 0 ? '.' : ',';
    const isSingle = digits.indexOf(separator) === decimalAt;
    const decimals = digits.length - decimalAt - 1;
    if (!isSingle || decimals === 3) decimalAt = -1;
  }
  const whole = (decimalAt < 0 ? digits : digits.slice(0, decimalAt)).replace(/[.,]/g, '');
  const fraction = decimalAt < 0 ? '' : digits.slice(decimalAt + 1);
  return positiveAmount(Number(fraction ? `${whole}.${fraction}` : whole));
}

const positiveAmount = (value: number) =>
  Number.isFinite(value) && value > 0 ? roundToCents(value) : undefined;

/**
 * A price in decimal units from a number, a display string with any currency marks and separators
 * ("$1,299.99", "1.299,99 €", "USD 12"), or a `{value}` / `{amount}` object. Amounts are taken as
 * written: nothing is rescaled by its size. Zero and negative amounts are not prices.
 */
export function parsePrice(value: unknown): number | undefined {
  if (typeof value === 'number') return positiveAmount(value);
  if (typeof value === 'string') return parsePriceText(value);
  if (isRecord(value)) return parsePrice(value.value ?? value.amount);
  return undefined;
}

const ASIN = /^[A-Z0-9]{10}$/;
const ASIN_IN_URL = /\/(?:dp|gp\/product|gp\/aw\/d)\/([A-Za-z0-9]{10})(?=[/?#]|$)/;

function parseAsin(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const asin = value.trim().toUpperCase();
  return ASIN.test(asin) ? asin : undefined;
}

function asinFromUrl(url: string): string | undefined {
  const match = ASIN_IN_URL.exec(new URL(url).pathname);
  return match?.[1]?.toUpperCase();
}

/** Only absolute web addresses: a relative path or a `javascript:` link is as broken as no link. */
function parseWebUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function cleanText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.replace(/\s+/g, ' ').trim();
  return text === '' ? undefined : text;
}

/** The first of a string, an array of strings, or an object with a `url`, as image fields come. */
function imageCandidate(value: unknown): unknown {
  if (Array.isArray(value)) return imageCandidate(value[0]);
  if (isRecord(value)) return imageCandidate(value.url ?? value.src);
  return value === null || value === '' ? undefined : value;
}

/** The actor's `brand` is often the store link text ("Visit the Sony Store"), not the brand itself. */
const BRAND_IN_SLOGAN = [/^visit the (.+?) store$/i, /^brand:\s*(.+)$/i];

function brandInSlogan(text: string): string | undefined {
  for (const pattern of BRAND_IN_SLOGAN) {
    const brand = pattern.exec(text)?.[1];
    if (brand) return brand;
  }
  return undefined;
}

function parseBrand(item: Item): string {
  const named = cleanText(read(item, 'additionalProperties.brand')) ?? cleanText(read(item, 'brand.name'));
  if (named) return brandInSlogan(named) ?? named;
  const plain = cleanText(read(item, 'brand'));
  if (plain) return brandInSlogan(plain) ?? plain;
  // A slogan that does not name the brand is marketing text, worse than no brand.
  const slogan = cleanText(read(item, 'brand.slogan'));
  return (slogan && brandInSlogan(slogan)) ?? '';
}

/** The most specific breadcrumb: "Clothing › Men › Shoes" is a shoe. */
function parseCategory(item: Item): string {
  const crumbs = read(item, 'additionalProperties.breadCrumbs') ?? read(item, 'breadCrumbs');
  const parts = Array.isArray(crumbs)
    ? crumbs.map((crumb) => cleanText(isRecord(crumb) ? crumb.name : crumb))
    : (cleanText(crumbs)?.split(/\s*[›>]\s*/) ?? []);
  const leaf = parts.filter((part): part is string => Boolean(part)).at(-1);
  return leaf ?? cleanText(read(item, 'category')) ?? '';
}

/** Stars from a number or from text such as "4.5 out of 5 stars"; 0 means unrated, as the actor uses it. */
function parseRating(value: unknown): number | undefined {
  const rating = typeof value === 'string' ? Number(/\d+(?:\.\d+)?/.exec(value)?.[0]) : value;
  return typeof rating === 'number' && rating > 0 && rating <= 5 ? rating : undefined;
}

function parseCount(value: unknown): number | undefined {
  const count =
    typeof value === 'string' ? Number(/\d[\d,.\s]*/.exec(value)?.[0].replace(/[,.\s]/g, '')) : value;
  return typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : undefined;
}

const IN_STOCK = /instock|in stock|limitedavailability|preorder|onlineonly/i;
const OUT_OF_STOCK = /outofstock|out of stock|soldout|discontinued|unavailable/i;

function stockFromText(value: unknown): boolean | undefined {
  if (typeof value !== 'string') return undefined;
  if (OUT_OF_STOCK.test(value)) return false;
  return IN_STOCK.test(value) ? true : undefined;
}

/**
 * Unknown stock counts as available: the actor leaves `inStock` out when the page does not say, and a
 * listing on a search page can normally be bought.
 */
function parseAvailability(item: Item): boolean {
  const inStock = read(item, 'additionalProperties.inStock') ?? read(item, 'inStock');
  if (typeof inStock === 'boolean') return inStock;
  return (
    stockFromText(read(item, 'offers.availability')) ??
    stockFromText(read(item, 'additionalProperties.inStockText')) ??
    true
  );
}

const PRICE_PATHS = ['offers.price', 'price', 'additionalProperties.price', 'offers.lowPrice'];
const LIST_PRICE_PATHS = ['additionalProperties.listPrice', 'listPrice'];
const TITLE_PATHS = ['name', 'title', 'additionalProperties.title'];
const IMAGE_PATHS = [
  'image',
  'images',
  'thumbnailImage',
  'additionalProperties.thumbnailImage',
  'additionalProperties.highResolutionImages',
  'additionalProperties.images',
];

/**
 * One scraped item as a product, or null when it cannot be shown or bought: no title, no positive price,
 * no ASIN in its fields or product URL, or a product or image link that is missing or not a web address.
 */
export function normalizeProduct(raw: unknown): NormalizedProduct | null {
  if (!isRecord(raw)) return null;
  const title = firstParsed(raw, TITLE_PATHS, cleanText);
  const price = firstParsed(raw, PRICE_PATHS, parsePrice);
  const productUrl = parseWebUrl(read(raw, 'url'));
  const imageUrl = parseWebUrl(firstParsed(raw, IMAGE_PATHS, imageCandidate));
  if (!title || price === undefined || !productUrl || !imageUrl) return null;
  const asin = firstParsed(raw, ['additionalProperties.asin', 'asin'], parseAsin) ?? asinFromUrl(productUrl);
  if (!asin) return null;
  const listPrice = firstParsed(raw, LIST_PRICE_PATHS, parsePrice);
  return {
    asin,
    title,
    price,
    originalPrice: listPrice !== undefined && listPrice > price ? listPrice : price,
    rating: firstParsed(raw, ['additionalProperties.stars', 'stars', 'rating'], parseRating) ?? 0,
    reviewCount:
      firstParsed(raw, ['reviewCount', 'additionalProperties.reviewsCount', 'reviewsCount'], parseCount) ?? 0,
    imageUrl,
    productUrl,
    brand: parseBrand(raw),
    category: parseCategory(raw),
    availability: parseAvailability(raw),
  };
}

function parseCondition(value: unknown): ProductCondition | undefined {
  if (typeof value !== 'string') return undefined;
  // "Used - Like New" is used, so the used and refurbished words are looked for before "new".
  if (/used/i.test(value)) return 'used';
  if (/refurbished|renewed/i.test(value)) return 'refurbished';
  return /new/i.test(value) ? 'new' : undefined;
}

export function readListingFlags(raw: unknown): ListingFlags {
  if (!isRecord(raw)) return {};
  const prime = firstParsed(
    raw,
    ['additionalProperties.isPrime', 'isPrime', 'additionalProperties.prime'],
    (v) => (typeof v === 'boolean' ? v : undefined),
  );
  const condition = firstParsed(
    raw,
    ['offers.itemCondition', 'additionalProperties.condition', 'condition'],
    parseCondition,
  );
  return {
    ...(prime !== undefined ? { prime } : {}),
    ...(condition ? { condition } : {}),
  };
}
