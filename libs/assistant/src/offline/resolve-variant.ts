import type { ProductSummary } from '@shop/product-search';
import type { VariantWish } from './intent';
import { COLOR_FAMILIES, SIZE_LADDER, SIZE_WORDS } from './vocabulary';

export type VariantProblem =
  | { kind: 'size-unavailable'; wanted: string; available: string[] }
  | { kind: 'color-unavailable'; wanted: string; available: string[] }
  | { kind: 'color-ambiguous'; wanted: string; options: string[] };

export type VariantResolution =
  { ok: true; size?: string; color?: string } | { ok: false; problem: VariantProblem };

export const sizeKey = (size: string) => {
  const lower = size.trim().toLowerCase();
  return (SIZE_WORDS[lower] ?? lower).toLowerCase();
};

const words = (text: string) => text.toLowerCase().split(/[\s-]+/);

/** Whether a product's colour is the one the shopper named ("blue" is "Cobalt Blue"). */
export const colorMatches = (color: string, wanted: string) =>
  color.toLowerCase() === wanted.toLowerCase() || words(color).includes(wanted.toLowerCase());

const ladderStep = (size: string) => SIZE_LADDER.findIndex((step) => step.toLowerCase() === sizeKey(size));

/** How far apart two sizes are: steps on the apparel ladder, or the difference of two numbers. */
function sizeDistance(a: string, b: string): number {
  const [stepA, stepB] = [ladderStep(a), ladderStep(b)];
  if (stepA >= 0 && stepB >= 0) return Math.abs(stepA - stepB);
  const [numberA, numberB] = [Number(a), Number(b)];
  return Number.isFinite(numberA) && Number.isFinite(numberB) ? Math.abs(numberA - numberB) : Infinity;
}

/** The closest size the product has; of two equally close, the larger, which still fits. */
function nearestSize(sizes: readonly string[], wanted: string): string | undefined {
  const ranked = sizes
    .map((size, index) => ({ size, index, distance: sizeDistance(size, wanted) }))
    .sort((a, b) => a.distance - b.distance || b.index - a.index);
  return ranked[0]?.size;
}

/** The product's colour closest to the wanted one by the colour families, else its first colour. */
function nearestColor(colors: readonly string[], wanted: string): string | undefined {
  const lower = wanted.toLowerCase();
  for (const family of COLOR_FAMILIES.filter((members) => members.includes(lower))) {
    for (const member of family) {
      const match = colors.find((color) => color.toLowerCase() === member);
      if (match !== undefined) return match;
    }
  }
  return colors[0];
}

/**
 * The shopper's size and colour, spelt as the product lists them ("m" -> "M", "blue" -> "Cobalt Blue").
 * A product with a single size or colour gets it without asking. A wish the product does not list is a
 * problem to tell the shopper about, never silently dropped, unless the shopper said the nearest will
 * do ("black if possible"): then the nearest is taken and the answer says so.
 */
export function resolveVariant(product: ProductSummary, wish: VariantWish): VariantResolution {
  const sizes = product.sizes ?? [];
  const colors = product.colors ?? [];
  let size: string | undefined;
  let color: string | undefined;

  if (wish.size !== undefined) {
    const wanted = sizeKey(wish.size);
    size = sizes.length === 0 ? wish.size : sizes.find((candidate) => sizeKey(candidate) === wanted);
    if (size === undefined && wish.soft) size = nearestSize(sizes, wish.size);
    if (size === undefined)
      return { ok: false, problem: { kind: 'size-unavailable', wanted: wish.size, available: sizes } };
  } else if (sizes.length === 1) {
    size = sizes[0];
  }

  if (wish.color !== undefined) {
    const wanted = wish.color.toLowerCase();
    const exact = colors.find((candidate) => candidate.toLowerCase() === wanted);
    const partial = colors.filter((candidate) => colorMatches(candidate, wanted));
    if (colors.length === 0) color = wish.color;
    else if (exact !== undefined) color = exact;
    else if (partial.length === 1) color = partial[0];
    else if (partial.length > 1)
      return { ok: false, problem: { kind: 'color-ambiguous', wanted: wish.color, options: partial } };
    else if (wish.soft) color = nearestColor(colors, wish.color);
    else return { ok: false, problem: { kind: 'color-unavailable', wanted: wish.color, available: colors } };
  } else if (colors.length === 1) {
    color = colors[0];
  }

  return { ok: true, ...(size !== undefined && { size }), ...(color !== undefined && { color }) };
}
