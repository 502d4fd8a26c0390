import { createHash } from 'node:crypto';
import {
  BRANDS,
  PRODUCT_TYPES,
  type BrandRow,
  type CatalogCategory,
  type ProductTypeRow,
} from './catalog-tables';

export interface CatalogProduct {
  /** 10 upper-case alphanumerics, shaped like a marketplace ASIN. */
  productId: string;
  name: string;
  brand: string;
  category: CatalogCategory;
  productType: string;
  /** Integer USD cents, as the cart and orders store prices. */
  priceCents: number;
  sizes: string[];
  colors: string[];
  imageUrl: string;
  productUrl: string;
  retailer: string;
  rating: number;
  reviewCount: number;
  /** ISO date the product was listed; `newest` sorts on it. */
  listedOn: string;
}

const IMAGE_BASE = 'https://images.example-cdn.com/catalog';
const PRODUCT_BASE = 'https://shop.example.com/products';
const LISTING_PERIOD_START = Date.UTC(2023, 0, 1);
const LISTING_PERIOD_DAYS = 3 * 365;
const DAY_MS = 86_400_000;

/**
 * A number in [0, 1) fixed by the key. Each product attribute hashes its own key, so adding a row to the
 * tables leaves every existing product exactly as it was.
 */
function unit(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) / 2 ** 32;
}

function productIdOf(key: string): string {
  const digits = BigInt(`0x${createHash('sha256').update(`id|${key}`).digest('hex').slice(0, 16)}`)
    .toString(36)
    .toUpperCase()
    .padStart(8, '0')
    .slice(-8);
  return `B0${digits}`;
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** Two to four colours of the palette, picked by rank of their hash so the choice is stable per product. */
function colorsOf(key: string, palette: readonly string[]): string[] {
  const count = Math.min(palette.length, 2 + Math.floor(unit(`colors|${key}`) * 3));
  return [...palette].sort((a, b) => unit(`${key}|${a}`) - unit(`${key}|${b}`)).slice(0, count);
}

function buildProduct(brand: BrandRow, type: ProductTypeRow, line: string): CatalogProduct {
  const name = `${brand.name} ${line} ${type.name}`;
  const key = name.toLowerCase();
  const productId = productIdOf(key);
  const [low, high] = type.priceRange;
  const dollars = Math.round(((low + unit(`price|${key}`) * (high - low)) * brand.priceTier) / 100);
  return {
    productId,
    name,
    brand: brand.name,
    category: type.category,
    productType: type.name,
    // Shelf prices end in .99.
    priceCents: dollars * 100 - 1,
    sizes: [...type.sizes],
    colors: colorsOf(key, type.palette),
    imageUrl: `${IMAGE_BASE}/${productId}.jpg`,
    productUrl: `${PRODUCT_BASE}/${slug(name)}-${productId.toLowerCase()}`,
    retailer: brand.retailer,
    rating: Math.round((3.5 + unit(`rating|${key}`) * 1.5) * 10) / 10,
    reviewCount: Math.floor(Math.expm1(unit(`reviews|${key}`) * Math.log(20_000))),
    listedOn: new Date(
      LISTING_PERIOD_START + Math.floor(unit(`listed|${key}`) * LISTING_PERIOD_DAYS) * DAY_MS,
    )
      .toISOString()
      .slice(0, 10),
  };
}

function buildCatalog(): readonly CatalogProduct[] {
  const products = BRANDS.flatMap((brand) =>
    PRODUCT_TYPES.filter((type) => type.category === brand.category).flatMap((type) =>
      type.lines.map((line) => buildProduct(brand, type, line)),
    ),
  );
  const ids = new Set(products.map((product) => product.productId));
  if (ids.size !== products.length)
    throw new Error('Catalogue product ids collide; change the id derivation');
  return products.map((product) => Object.freeze(product));
}

/** Every product of the mock catalogue, in table order; the same on every start. */
export const CATALOG_PRODUCTS: readonly CatalogProduct[] = buildCatalog();
