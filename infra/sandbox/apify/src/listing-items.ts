import { hashSeed, seededRandom, type Random } from './seeded-random';

/** The ways a generated item departs from a clean one, as real scrapes do. */
export const LISTING_QUIRKS = [
  'no-price',
  'bad-url',
  'no-title',
  'string-price',
  'asin-only-in-url',
] as const;
export type ListingQuirk = (typeof LISTING_QUIRKS)[number];

/** Quirks after which the item cannot be shown: the others are odd but complete. */
export const MALFORMING_QUIRKS: ReadonlySet<ListingQuirk> = new Set(['no-price', 'bad-url', 'no-title']);

export type ListingItem = Record<string, unknown>;

export interface GeneratedListing {
  items: ListingItem[];
  /** Index into `items` of each quirky item. */
  quirks: { index: number; quirk: ListingQuirk }[];
}

const BRANDS = [
  'Northfield',
  'Harbor & Pine',
  'Summit Ridge',
  'Urban Loom',
  'Kestrel',
  'Bramblewood',
  'Cobalt Coast',
  'Meridian Goods',
  'Alder Lane',
  'Trailhead Supply',
];
const DESCRIPTORS = [
  'Classic',
  'Lightweight',
  'Premium',
  'Everyday',
  'Performance',
  'Organic Cotton',
  'Waterproof',
];
const PACKAGING = ['', '', '', ', 2 Pack', ', 3 Pairs', ' for Men', ' for Women', ' - Unisex'];
const DEPARTMENTS = ['Clothing, Shoes & Jewelry', 'Sports & Outdoors', 'Home & Kitchen', 'Electronics'];
const IMAGE_HOST = 'https://images.example-cdn.com/marketplace/I';
// The marketplace's refinement ids, spelled out rather than imported from @shop/scraper so that a wrong id
// there fails the scraper's tests here instead of being mirrored.
const PRIME_REFINEMENT = 'p_85:2470955011';
const CONDITION_NEW_REFINEMENT = 'p_n_condition-type:6461716011';

const titleCase = (text: string) => text.replace(/\b\p{L}/gu, (letter) => letter.toUpperCase());
const slug = (text: string) =>
  text
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);

function priceBetween(random: Random, low: number, high: number): number {
  const cents = [99, 49, 95, 0];
  const whole = low + random.next() * (high - low);
  const price = Math.floor(whole) + random.pick(cents) / 100;
  return Math.min(high, Math.max(low, price));
}

function listingFilters(url: URL) {
  const number = (name: string) => {
    const value = url.searchParams.get(name);
    return value === null || value.trim() === '' || !Number.isFinite(Number(value))
      ? undefined
      : Number(value);
  };
  const refinements = (url.searchParams.get('rh') ?? '').split(',');
  return {
    keyword: (url.searchParams.get('k') ?? '').trim() || 'product',
    low: number('low-price'),
    high: number('high-price'),
    page: number('page') ?? 1,
    prime: refinements.includes(PRIME_REFINEMENT),
    newOnly: refinements.includes(CONDITION_NEW_REFINEMENT),
  };
}

function cleanItem(
  random: Random,
  origin: string,
  filters: ReturnType<typeof listingFilters>,
  position: number,
): ListingItem {
  const brand = random.pick(BRANDS);
  const name = `${brand} ${random.pick(DESCRIPTORS)} ${titleCase(filters.keyword)}${random.pick(PACKAGING)}`;
  const asin = `B0${random.alphanumeric(8)}`;
  // The marketplace honours its own price filter, so prices stay inside the requested range.
  const high = filters.high ?? (filters.low ?? 5) + random.pick([40, 120, 400, 1500]);
  const low = Math.min(filters.low ?? 5, high);
  const price = priceBetween(random, low, high);
  const discounted = random.next() < 0.35;
  const listPrice = discounted ? Math.round(price * (1.15 + random.next() * 0.4)) + 0.99 : undefined;
  const stars = Math.round((3.4 + random.next() * 1.6) * 10) / 10;
  const inStock = random.next() < 0.9;
  const used = !filters.newOnly && random.next() < 0.15;
  return {
    name,
    url: `${origin}/${slug(name)}/dp/${asin}/ref=sr_1_${position + 1}`,
    image: `${IMAGE_HOST}/${random.alphanumeric(11)}._AC_UL320_.jpg`,
    brand: { slogan: `Visit the ${brand} Store` },
    offers: { price, priceCurrency: '$' },
    reviewCount: Math.floor(Math.exp(random.next() * Math.log(40_000))),
    additionalProperties: {
      asin,
      stars,
      inStock,
      inStockText: inStock ? 'In Stock' : 'Currently unavailable.',
      isPrime: filters.prime || random.next() < 0.6,
      condition: used ? 'Used - Like New' : 'New',
      breadCrumbs: `${random.pick(DEPARTMENTS)} › ${titleCase(filters.keyword)}`,
      ...(listPrice !== undefined ? { listPrice: { value: listPrice, currency: '$' } } : {}),
    },
  };
}

function applyQuirk(item: ListingItem, quirk: ListingQuirk): void {
  const offers = item.offers as { price: number };
  const additional = item.additionalProperties as Record<string, unknown>;
  switch (quirk) {
    case 'no-price':
      delete (offers as { price?: number }).price;
      return;
    case 'bad-url':
      item.url = `htp//${String(item.url).replace(/^https?:\/\//, '')}`;
      return;
    case 'no-title':
      item.name = '';
      return;
    case 'string-price':
      item.offers = {
        price: offers.price.toLocaleString('en-US', { style: 'currency', currency: 'USD' }),
        priceCurrency: 'USD',
      };
      return;
    case 'asin-only-in-url':
      delete additional.asin;
      return;
  }
}

/**
 * What the e-commerce actor would scrape from a listing URL: 10 to 40 items decided by the keyword `k` and
 * the page, each quirk of LISTING_QUIRKS on one item, Prime and condition refinements of `rh` and the
 * price range honoured the way the marketplace does. Product links stay on the listing's own host.
 */
export function generateListing(listingUrl: string): GeneratedListing {
  const url = new URL(listingUrl);
  const filters = listingFilters(url);
  const random = seededRandom(hashSeed(`${filters.keyword.toLowerCase()}|${filters.page}`));
  const count = random.int(10, 40);
  const items = Array.from({ length: count }, (_, position) =>
    cleanItem(random, url.origin, filters, position),
  );
  const positions = random.shuffle(items.map((_, index) => index));
  const quirks = LISTING_QUIRKS.map((quirk, i) => ({ index: positions[i] as number, quirk }));
  for (const { index, quirk } of quirks) applyQuirk(items[index] as ListingItem, quirk);
  return { items, quirks };
}
