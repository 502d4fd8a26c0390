import type { Memory } from './memory';

/** Words too common to tell one memory from another. */
const STOP_WORDS = new Set([
  'the',
  'and',
  'for',
  'with',
  'that',
  'this',
  'are',
  'was',
  'you',
  'your',
  'my',
  'me',
  'i',
  'im',
  'a',
  'an',
  'of',
  'to',
  'in',
  'on',
  'at',
  'is',
  'it',
  'be',
  'or',
  'do',
  'some',
  'any',
  'show',
  'find',
  'want',
  'need',
  'like',
  'please',
  'can',
  'could',
  'would',
  'prefer',
  'prefers',
]);

/** Lower case, accents folded, split on non-alphanumerics, a plural "s" dropped: "Boots" meets "boot". */
function terms(text: string): Set<string> {
  return new Set(
    text
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((term) => term.length > 1 && !STOP_WORDS.has(term))
      .map((term) =>
        term.length > 3 && term.endsWith('s') && !term.endsWith('ss') ? term.slice(0, -1) : term,
      ),
  );
}

const time = (memory: Memory) => (memory.createdAt === null ? -Infinity : Date.parse(memory.createdAt));
const newerFirst = (a: Memory, b: Memory) => Math.sign(time(b) - time(a)) || 0;

/**
 * Orders a user's memories for a query: by the share of the query's words each contains, the newer first
 * among equals (a later "I now wear L" beats an older "I wear M"), then by id so the order is total.
 * Memories sharing no word with the query are kept at the end: a size or fit preference still applies to
 * "show me jackets". The caller takes as many as it wants from the front.
 */
export function rankMemories(query: string, memories: readonly Memory[]): Memory[] {
  const wanted = terms(query);
  return memories
    .map((memory) => {
      const own = terms(memory.content);
      const shared = [...wanted].filter((term) => own.has(term)).length;
      return { memory, score: wanted.size === 0 ? 0 : shared / wanted.size };
    })
    .sort(
      (a, b) => b.score - a.score || newerFirst(a.memory, b.memory) || a.memory.id.localeCompare(b.memory.id),
    )
    .map(({ memory, score }) => ({ ...memory, score }));
}
