import type { ProductSummary } from '@shop/product-search';
import type { VariantWish } from './intent';
import { SIZE_WORDS } from './vocabulary';

export type VariantProblem =
  | { kind: 'size-unavailable'; wanted: string; available: string[] }
  | { kind: 'color-unavailable'; wanted: string; available: string[] }
  | { kind: 'color-ambiguous'; wanted: string; options: string[] };

export type VariantResolution =
  { ok: true; size?: string; color?: string } | { ok: false; problem: VariantProblem };

const sizeKey = (size: string) => {
  const lower = size.trim().toLowerCase();
  return (SIZE_WORDS[lower] ?? lower).toLowerCase();
};

const words = (text: string) => text.toLowerCase().split(/[\s-]+/);

/**
 * The shopper's size and colour, spelt as the product lists them ("m" -> "M", "blue" -> "Cobalt Blue").
 * A product with a single size or colour gets it without asking; a wish the product does not list is a
 * problem to tell the shopper about, never silently dropped.
 */
export function resolveVariant(product: ProductSummary, wish: VariantWish): VariantResolution {
  const sizes = product.sizes ?? [];
  const colors = product.colors ?? [];
  let size: string | undefined;
  let color: string | undefined;

  if (wish.size !== undefined) {
    const wanted = sizeKey(wish.size);
    size = sizes.length === 0 ? wish.size : sizes.find((candidate) => sizeKey(candidate) === wanted);
    if (size === undefined)
      return { ok: false, problem: { kind: 'size-unavailable', wanted: wish.size, available: sizes } };
  } else if (sizes.length === 1) {
    size = sizes[0];
  }

  if (wish.color !== undefined) {
    const wanted = wish.color.toLowerCase();
    const exact = colors.find((candidate) => candidate.toLowerCase() === wanted);
    const partial = colors.filter((candidate) => words(candidate).includes(wanted));
    if (colors.length === 0) color = wish.color;
    else if (exact !== undefined) color = exact;
    else if (partial.length === 1) color = partial[0];
    else if (partial.length > 1)
      return { ok: false, problem: { kind: 'color-ambiguous', wanted: wish.color, options: partial } };
    else return { ok: false, problem: { kind: 'color-unavailable', wanted: wish.color, available: colors } };
  } else if (colors.length === 1) {
    color = colors[0];
  }

  return { ok: true, ...(size !== undefined && { size }), ...(color !== undefined && { color }) };
}
