/** Lower case, straight quotes, "1,200" as "1200" and en dashes as hyphens, so rules match one spelling. */
export function normalizeMessage(text: string): string {
  return text
    .toLowerCase()
    .replace(/[‘’`]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/[–—]/g, '-')
    .replace(/(\d),(\d{3})\b/g, '$1$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A message being read rule by rule. Each recognised phrase is cut out, so a later rule (and the search
 * query built from what is left) never reads it twice: "under $80" is a price, not a query word.
 */
export class TextScanner {
  private rest: string;

  constructor(message: string) {
    this.rest = normalizeMessage(message);
  }

  get remaining(): string {
    return this.rest;
  }

  /** The first match of a non-global pattern, removed from the text. */
  take(pattern: RegExp): RegExpExecArray | undefined {
    const match = pattern.exec(this.rest);
    if (!match) return undefined;
    this.rest = `${this.rest.slice(0, match.index)} ${this.rest.slice(match.index + match[0].length)}`;
    return match;
  }
}
