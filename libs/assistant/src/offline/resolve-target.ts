import type { ProductSummary } from '@shop/product-search';
import { searchTerms } from '@shop/scraper';
import type { CartItemView } from '../tool-schemas';
import type { Reference, Superlative } from './reference';
import { colorMatches } from './resolve-variant';
import type { ShoppingState } from './shopping-state';

/** Why a reference points at nothing: each case gets its own answer to the shopper. */
export type TargetProblem =
  | { kind: 'nothing-to-point-at' }
  | { kind: 'out-of-range'; count: number }
  | { kind: 'ambiguous'; names: string[] }
  | { kind: 'not-found'; phrase: string };

export type Resolution<T> = { ok: true; value: T } | { ok: false; problem: TargetProblem };

interface Candidate<T> {
  value: T;
  name: string;
  /** Text the shopper might use to name it. */
  words: string;
  price: number;
  rating?: number;
  colors: readonly string[];
}

const found = <T>(value: T): Resolution<T> => ({ ok: true, value });
const problem = <T>(failure: TargetProblem): Resolution<T> => ({ ok: false, problem: failure });

const SUPERLATIVE_ORDER: Record<Superlative, (a: Candidate<unknown>, b: Candidate<unknown>) => number> = {
  cheapest: (a, b) => a.price - b.price,
  priciest: (a, b) => b.price - a.price,
  'best-rated': (a, b) => (b.rating ?? 0) - (a.rating ?? 0),
};

function byPosition<T>(candidates: Candidate<T>[], index: number): Resolution<T> {
  if (candidates.length === 0) return problem({ kind: 'nothing-to-point-at' });
  const candidate = index < 0 ? candidates[candidates.length + index] : candidates[index];
  return candidate ? found(candidate.value) : problem({ kind: 'out-of-range', count: candidates.length });
}

/** The earliest of equals wins, so "the cheapest one" of two at the same price is the one listed first. */
function bySuperlative<T>(candidates: Candidate<T>[], by: Superlative): Resolution<T> {
  const [best] = candidates
    .map((candidate, index) => ({ candidate, index }))
    .sort((a, b) => SUPERLATIVE_ORDER[by](a.candidate, b.candidate) || a.index - b.index);
  return best ? found(best.candidate.value) : problem({ kind: 'nothing-to-point-at' });
}

/**
 * The candidates sharing the most of the shopper's words; among several equally good ones, the one the
 * conversation is about ("the jacket" after looking at a jacket), else they are ambiguous.
 */
function byWords<T>(
  candidates: Candidate<T>[],
  { terms, phrase }: { terms: string[]; phrase: string },
  focused: T | undefined,
): Resolution<T> {
  if (candidates.length === 0) return problem({ kind: 'not-found', phrase });
  const scored = candidates.map((candidate) => {
    const own = new Set(searchTerms(candidate.words));
    return { candidate, score: terms.filter((term) => own.has(term)).length };
  });
  const top = Math.max(...scored.map(({ score }) => score));
  if (top === 0) return problem({ kind: 'not-found', phrase });
  const best = scored.filter(({ score }) => score === top);
  const [only] = best;
  if (best.length === 1 && only) return found(only.candidate.value);
  if (focused !== undefined && best.some(({ candidate }) => candidate.value === focused))
    return found(focused);
  return problem({ kind: 'ambiguous', names: best.map(({ candidate }) => candidate.name) });
}

function byDefault<T>(candidates: Candidate<T>[]): Resolution<T> {
  const [only] = candidates;
  if (candidates.length === 1 && only) return found(only.value);
  if (candidates.length === 0) return problem({ kind: 'nothing-to-point-at' });
  return problem({ kind: 'ambiguous', names: candidates.map(({ name }) => name) });
}

/** "the black one": the only candidate offered in that colour, else the one in focus among several. */
function byColor<T>(candidates: Candidate<T>[], color: string, focused: T | undefined): Resolution<T> {
  if (candidates.length === 0) return problem({ kind: 'nothing-to-point-at' });
  const matching = candidates.filter(({ colors }) => colors.some((offered) => colorMatches(offered, color)));
  const [only] = matching;
  if (matching.length === 1 && only) return found(only.value);
  if (matching.length === 0) return problem({ kind: 'not-found', phrase: `${color} one` });
  if (focused !== undefined && matching.some(({ value }) => value === focused)) return found(focused);
  return problem({ kind: 'ambiguous', names: matching.map(({ name }) => name) });
}

/** "the other one": what is left of the candidates once the one in focus is set aside. */
function byOther<T>(candidates: Candidate<T>[], focused: T | undefined): Resolution<T> {
  if (candidates.length === 0) return problem({ kind: 'nothing-to-point-at' });
  const others = candidates.filter(({ value }) => value !== focused);
  const [only] = others;
  if (others.length === 1 && only && others.length < candidates.length) return found(only.value);
  return problem({ kind: 'ambiguous', names: others.map(({ name }) => name) });
}

function resolve<T>(reference: Reference, candidates: Candidate<T>[], focused: T | undefined): Resolution<T> {
  switch (reference.kind) {
    case 'attribute':
      return byColor(candidates, reference.color, focused);
    case 'other':
      return byOther(candidates, focused);
    case 'both':
      return byDefault(candidates);
    case 'position':
      return byPosition(candidates, reference.index);
    case 'superlative':
      return bySuperlative(candidates, reference.by);
    case 'words':
      return byWords(candidates, reference, focused);
    case 'pronoun':
    case 'none':
      return focused === undefined ? byDefault(candidates) : found(focused);
  }
}

const productCandidate = (product: ProductSummary): Candidate<ProductSummary> => ({
  value: product,
  name: product.productName,
  words: [product.productName, product.brand, ...(product.colors ?? [])].join(' '),
  price: product.price,
  rating: product.rating,
  colors: product.colors ?? [],
});

/** What "the cheaper one", "the black one" or "the other one" choose among: a comparison just shown, else the listing. */
function pool(state: ShoppingState): ProductSummary[] {
  return state.lastListing === 'compare' && state.compared ? state.compared : (state.listing?.products ?? []);
}

/** "the last one" after a comparison is the last compared; other positions count in the listing. */
const choosesAmongShown = (reference: Reference) =>
  (reference.kind === 'position' && reference.index === -1) ||
  reference.kind === 'superlative' ||
  reference.kind === 'attribute' ||
  reference.kind === 'other' ||
  reference.kind === 'both';

/** A product of the latest listing (or the one last looked at), as the shopper referred to it. */
export function resolveProduct(reference: Reference, state: ShoppingState): Resolution<ProductSummary> {
  const listed = choosesAmongShown(reference) ? pool(state) : (state.listing?.products ?? []);
  const { focus } = state;
  const focused =
    focus?.kind === 'product'
      ? (listed.find(({ productId }) => productId === focus.product.productId) ?? focus.product)
      : listed.find(({ productId }) => focus?.kind === 'cart-item' && focus.item.productId === productId);
  const candidates = listed.map(productCandidate);
  if (reference.kind === 'words' && focused && !listed.includes(focused)) {
    candidates.push(productCandidate(focused));
  }
  return resolve(reference, candidates, focused);
}

/** An item of the known cart, listed in the order the shopper last saw it. */
export function resolveCartItem(reference: Reference, state: ShoppingState): Resolution<CartItemView> {
  const { items } = state.cart;
  const { focus } = state;
  const focused = items.find(
    ({ id, productId }) =>
      (focus?.kind === 'cart-item' && focus.item.id === id) ||
      (focus?.kind === 'product' && focus.product.productId === productId),
  );
  const candidates = items.map((item): Candidate<CartItemView> => ({
    value: item,
    name: item.productName,
    words: [item.productName, item.size, item.color].join(' '),
    price: item.price,
    colors: [item.color],
  }));
  return resolve(reference, candidates, focused);
}

/**
 * The products a request about several points at: "both" (the two last compared, or a listing of two),
 * else the one product its reference resolves to.
 */
export function resolveProducts(reference: Reference, state: ShoppingState): Resolution<ProductSummary[]> {
  if (reference.kind !== 'both') {
    const one = resolveProduct(reference, state);
    return one.ok ? found([one.value]) : one;
  }
  const shown = pool(state);
  if (shown.length === 2) return found(shown);
  if (shown.length === 0) return problem({ kind: 'nothing-to-point-at' });
  return problem({ kind: 'ambiguous', names: shown.map(({ productName }) => productName) });
}
