import type { TextScanner } from './text-scanner';
import { COLOR_SPELLINGS, COLORS, SIZE_WORDS } from './vocabulary';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const alternatives = (words: readonly string[]) =>
  [...words]
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join('|');

const SIZE_WORD = alternatives(Object.keys(SIZE_WORDS));
const SIZED = new RegExp(String.raw`\bsize\s+(${SIZE_WORD}|\d{1,2}(?:\.5)?)\b`);
const IN_SIZE = new RegExp(String.raw`\bin\s+(?:an?\s+)?(${SIZE_WORD})\b`);
/** "in 10.5" is a shoe size, "in 2 days" or "in 3 colors" is not. */
const IN_NUMBER =
  /\bin\s+(\d{1,2}(?:\.5)?)\b(?!\s*(?:\$|dollars?|usd|bucks|%|days?|weeks?|hours?|colou?rs?|sizes?|pack))/;

const COLOR = new RegExp(String.raw`(?<![\w-])(${alternatives(COLORS)})(?![\w-])`);

/** The size a shopper asked for, as catalogues write it ("medium" -> "M", "10.5" stays). */
export function takeSize(scanner: TextScanner): string | undefined {
  const match = scanner.take(SIZED) ?? scanner.take(IN_SIZE) ?? scanner.take(IN_NUMBER);
  const word = match?.[1];
  if (word === undefined) return undefined;
  return SIZE_WORDS[word] ?? word.toUpperCase();
}

/** The first colour named, spelling variants folded ("gray" -> "grey"). */
export function takeColor(scanner: TextScanner): string | undefined {
  const word = scanner.take(COLOR)?.[1];
  if (word === undefined) return undefined;
  return COLOR_SPELLINGS[word] ?? word;
}
