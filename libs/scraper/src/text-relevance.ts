/**
 * Comparable search terms of a text: lower case, accents folded, split on anything that is not a letter or
 * digit, one-character fragments dropped (the "s" of "men's", the "t" of "t-shirt"), and a plural "s"
 * stripped so "boots" meets "boot". Query and product text go through the same steps, so the stemming
 * only has to be consistent, not linguistically right.
 */
export function searchTerms(text: string): string[] {
  const terms = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((term) => term.length > 1)
    .map((term) =>
      term.length > 3 && term.endsWith('s') && !term.endsWith('ss') ? term.slice(0, -1) : term,
    );
  return [...new Set(terms)];
}

/** Share of the query terms found in any of the texts: 1 when all are, 0 when none are or there are none. */
export function termOverlap(queryTerms: readonly string[], ...texts: string[]): number {
  if (queryTerms.length === 0) return 0;
  const found = new Set(texts.flatMap(searchTerms));
  return queryTerms.filter((term) => found.has(term)).length / queryTerms.length;
}
