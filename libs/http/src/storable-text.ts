import { ZodError } from 'zod';
import type { core } from 'zod';

/**
 * Postgres text and jsonb cannot hold U+0000, and jsonb refuses an unpaired UTF-16 surrogate
 * (text would silently turn it into U+FFFD). A request carrying either would be accepted,
 * appended, and then fail its projection, parking the user's subject: so no route accepts it.
 */
const unpairedSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isStorable(text: string): boolean {
  return !text.includes('\u0000') && !unpairedSurrogate.test(text);
}

function collectUnstorable(value: unknown, path: PropertyKey[], issues: core.$ZodIssue[]): void {
  if (typeof value === 'string') {
    if (!isStorable(value)) {
      issues.push({
        code: 'custom',
        path,
        message: 'text must not contain NUL characters or unpaired surrogates',
        input: value,
      });
    }
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => collectUnstorable(item, [...path, index], issues));
    return;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      collectUnstorable(key, [...path, key], issues);
      collectUnstorable(item, [...path, key], issues);
    }
  }
}

/** Throws a ZodError (400 VALIDATION_ERROR) naming every field whose text no read model could store. */
export function assertStorable<T>(value: T): T {
  const issues: core.$ZodIssue[] = [];
  collectUnstorable(value, [], issues);
  if (issues.length > 0) throw new ZodError(issues);
  return value;
}
