import { searchTerms } from '@shop/scraper';
import { normalizeMessage } from './text-scanner';
import { ACTION_WORDS, COLORS, FILLER_WORDS, ORDINAL_WORDS, SIZE_WORDS } from './vocabulary';

export type Superlative = 'cheapest' | 'priciest' | 'best-rated';

/** How a message points at a product or a cart item it does not name by id. */
export type Reference =
  /** "the second one", "#2", "the last one" (-1). 0-based. */
  | { kind: 'position'; index: number }
  | { kind: 'superlative'; by: Superlative }
  /** "it", "this one": whatever the conversation last focused on. */
  | { kind: 'pronoun' }
  /** "the hoodie", "the Harbor & Pine jacket": `terms` (stemmed) are matched against names. */
  | { kind: 'words'; terms: string[]; phrase: string }
  | { kind: 'none' };

const ORDINAL = new RegExp(`\\b(${Object.keys(ORDINAL_WORDS).join('|')})\\b`);
const NUMBERED = /(?:\b(?:number|no\.?|item|option|result|product)\s*#?\s*|#)(\d{1,2})\b/;
const LAST = /\blast\s+(?:one|item|result|option|product)\b|\bthe\s+last\b/;
const SUPERLATIVES: readonly [RegExp, Superlative][] = [
  [
    /\b(?:cheapest|least expensive|lowest[- ]priced?)(?:\s+(?:one|item|result|option|of them)\b|\s*$)/,
    'cheapest',
  ],
  [/\b(?:most expensive|priciest)(?:\s+(?:one|item|result|option|of them)\b|\s*$)/, 'priciest'],
  [
    /\b(?:best[- ]rated|top[- ]rated|highest[- ]rated|best)(?:\s+(?:one|item|result|option|of them)\b|\s*$)/,
    'best-rated',
  ],
];
const PRONOUN = /\b(?:it|this|that|them|these|those)\b/;

const VARIANT_WORDS = new Set([
  ...COLORS.flatMap((color) => color.split(/[\s-]/)),
  ...Object.keys(SIZE_WORDS),
]);

function isPointingWord(word: string): boolean {
  return !FILLER_WORDS.has(word) && !ACTION_WORDS.has(word) && !VARIANT_WORDS.has(word) && !/^\d/.test(word);
}

/**
 * What "the second one in M", "it", "the cheapest one" or "the hoodie" points at. Positions win over
 * everything (they are never ambiguous), named words over pronouns ("that hoodie" names the hoodie).
 */
export function parseReference(message: string): Reference {
  const text = normalizeMessage(message);
  const ordinal = ORDINAL.exec(text)?.[1];
  if (ordinal !== undefined) return { kind: 'position', index: (ORDINAL_WORDS[ordinal] ?? 1) - 1 };
  const numbered = NUMBERED.exec(text)?.[1];
  if (numbered !== undefined) return { kind: 'position', index: Number(numbered) - 1 };
  if (LAST.test(text)) return { kind: 'position', index: -1 };
  for (const [pattern, by] of SUPERLATIVES) if (pattern.test(text)) return { kind: 'superlative', by };
  const words = text.split(/[^a-z0-9'&-]+/).filter((word) => word.length > 0 && isPointingWord(word));
  const phrase = words.join(' ');
  const terms = searchTerms(phrase);
  if (terms.length > 0) return { kind: 'words', terms, phrase };
  return PRONOUN.test(text) ? { kind: 'pronoun' } : { kind: 'none' };
}
