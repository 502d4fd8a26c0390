import { searchTerms } from '@shop/scraper';
import { normalizeMessage } from './text-scanner';
import { ACTION_WORDS, COLOR_SPELLINGS, COLORS, FILLER_WORDS, ORDINAL_WORDS, SIZE_WORDS } from './vocabulary';

export type Superlative = 'cheapest' | 'priciest' | 'best-rated';

/** How a message points at a product or a cart item it does not name by id. */
export type Reference =
  /** "the second one", "#2", "the last one" (-1). 0-based. */
  | { kind: 'position'; index: number }
  /** "the cheapest", "the cheaper one", "the best rated": over what was last shown. */
  | { kind: 'superlative'; by: Superlative }
  /** "the black one": the one offered in that colour. */
  | { kind: 'attribute'; color: string }
  /** "the other one": of two, the one the conversation is not about. */
  | { kind: 'other' }
  /** "both": the two last shown side by side. */
  | { kind: 'both' }
  /** "it", "this one": whatever the conversation last focused on. */
  | { kind: 'pronoun' }
  /** "the hoodie", "the Harbor & Pine jacket": `terms` (stemmed) are matched against names. */
  | { kind: 'words'; terms: string[]; phrase: string }
  | { kind: 'none' };

const ORDINAL = new RegExp(`\\b(${Object.keys(ORDINAL_WORDS).join('|')})\\b`);
const NUMBERED = /(?:\b(?:number|no\.?|item|option|result|product)\s*#?\s*|#)(\d{1,2})\b/;
const LAST = /\blast\s+(?:one|item|result|option|product)\b|\bthe\s+last\b/;
/** "the cheaper one", "the cheaper of the two", "add the cheaper": never "something cheaper", a search. */
const comparative = (words: string) =>
  new RegExp(
    String.raw`\b(?:${words})\s+(?:one|item|option|of them|of the two|of both)\b|\bthe\s+(?:${words})(?:\s+(?:in|for)\b|\s*[?.!]*$)`,
  );
const SUPERLATIVES: readonly [RegExp, Superlative][] = [
  [comparative('cheaper|less expensive|lower[- ]priced'), 'cheapest'],
  [comparative('pricier|more expensive|dearer|higher[- ]priced'), 'priciest'],
  [comparative('better[- ]rated|higher[- ]rated|better'), 'best-rated'],
  [
    /\b(?:cheapest|least expensive|lowest[- ]priced?)(?:\s+(?:one|item|result|option|of them)\b|\s*[?.!]*$)/,
    'cheapest',
  ],
  [/\b(?:most expensive|priciest)(?:\s+(?:one|item|result|option|of them)\b|\s*[?.!]*$)/, 'priciest'],
  [
    /\b(?:best[- ]rated|top[- ]rated|highest[- ]rated|best)(?:\s+(?:one|item|result|option|of them)\b|\s*[?.!]*$)/,
    'best-rated',
  ],
];
const PRONOUN = /\b(?:it|this|that|them|these|those)\b/;
const OTHER = /\bthe other(?:\s+(?:one|item|option|product))?\b/;
const BOTH = /\bboth\b/;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ATTRIBUTE = new RegExp(
  String.raw`\b(?:the|that)\s+(${[...COLORS].map(escape).join('|')})\s+(?:one|ones|version|option|pair)\b`,
);

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
  if (OTHER.test(text)) return { kind: 'other' };
  if (BOTH.test(text)) return { kind: 'both' };
  const color = ATTRIBUTE.exec(text)?.[1];
  if (color !== undefined) return { kind: 'attribute', color: COLOR_SPELLINGS[color] ?? color };
  const words = text.split(/[^a-z0-9'&-]+/).filter((word) => word.length > 0 && isPointingWord(word));
  const phrase = words.join(' ');
  const terms = searchTerms(phrase);
  if (terms.length > 0) return { kind: 'words', terms, phrase };
  return PRONOUN.test(text) ? { kind: 'pronoun' } : { kind: 'none' };
}

const COUNT_WORDS: Readonly<Record<string, number>> = { two: 2, three: 3, four: 4, '2': 2, '3': 3, '4': 4 };
const FIRST_FEW = /\b(?:first|top)\s+(two|three|four|[234])\b/;
const LAST_FEW = /\blast\s+(two|three|four|[234])\b/;
const ORDINALS = new RegExp(ORDINAL.source, 'g');

/**
 * Every position a message names, in order, for a request about several products: "the first two",
 * "the first or the third", "the last two", "#1 and #3". Empty when it names fewer than two.
 */
export function parsePositions(message: string): number[] {
  const text = normalizeMessage(message);
  const first = FIRST_FEW.exec(text)?.[1];
  if (first !== undefined) return Array.from({ length: COUNT_WORDS[first] ?? 2 }, (_, index) => index);
  const last = LAST_FEW.exec(text)?.[1];
  if (last !== undefined) {
    const count = COUNT_WORDS[last] ?? 2;
    return Array.from({ length: count }, (_, index) => index - count);
  }
  const named = [
    ...[...text.matchAll(ORDINALS)].map((match) => (ORDINAL_WORDS[match[1] ?? ''] ?? 1) - 1),
    ...[...text.matchAll(/#(\d{1,2})\b/g)].map((match) => Number(match[1]) - 1),
    ...(/\bthe last(?:\s+one)?\b/.test(text) ? [-1] : []),
  ];
  const positions = [...new Set(named)];
  return positions.length >= 2 ? positions : [];
}
