import { z } from 'zod';
import { GrowOnlySet } from '@shop/domain';

/**
 * A folded state as plain JSON and back: states hold Maps, Sets and GrowOnlySets (a cart's items
 * and every id it held, a session's message ids), which JSON would turn into `{}`. Each is written
 * as a one-key object tagged with a `$` name; no state's own fields start with `$`.
 */
export function encodeState(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Map) return { $map: [...value].map(([k, v]) => [encodeState(k), encodeState(v)]) };
  if (value instanceof Set) return { $set: [...value].map(encodeState) };
  if (value instanceof GrowOnlySet) return { $growOnlySet: [...value].map(encodeState) };
  if (value instanceof Date) return { $date: value.toISOString() };
  if (Array.isArray(value)) return value.map(encodeState);
  const encoded: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value))
    if (entry !== undefined) encoded[key] = encodeState(entry);
  return encoded;
}

export function decodeState(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(decodeState);
  const object = value as Record<string, unknown>;
  const tag = Object.keys(object);
  if (tag.length === 1) {
    if (tag[0] === '$map')
      return new Map(pairs(object.$map).map(([k, v]) => [decodeState(k), decodeState(v)]));
    if (tag[0] === '$set') return new Set(list(object.$set).map(decodeState));
    if (tag[0] === '$growOnlySet') return GrowOnlySet.of(list(object.$growOnlySet).map(decodeState));
    if (tag[0] === '$date') return new Date(z.iso.datetime().parse(object.$date));
  }
  const decoded: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(object)) decoded[key] = decodeState(entry);
  return decoded;
}

const list = (value: unknown) => z.array(z.unknown()).parse(value);
const pairs = (value: unknown) => z.array(z.tuple([z.unknown(), z.unknown()])).parse(value);

const collections = [
  ['map', Map],
  ['set', Set],
  ['grow-only set', GrowOnlySet],
] as const;

/**
 * Whether a decoded state has the shape of the aggregate's initial state: the same fields, each
 * a Map, Set, GrowOnlySet or array where the initial one is. A guard against a body that parses
 * but was not written for this aggregate; the snapshot version guards against shapes that changed.
 */
export function hasShapeOf(state: unknown, initial: unknown): boolean {
  if (typeof initial !== 'object' || initial === null) return typeof state === typeof initial;
  if (typeof state !== 'object' || state === null) return false;
  const expected = Object.keys(initial).sort();
  const actual = Object.keys(state).sort();
  if (actual.length !== expected.length || actual.some((key, i) => key !== expected[i])) return false;
  const kind = (v: unknown) =>
    Array.isArray(v) ? 'array' : (collections.find(([, type]) => v instanceof type)?.[0] ?? 'other');
  return expected.every((key) => {
    const want = kind((initial as Record<string, unknown>)[key]);
    return want === 'other' || kind((state as Record<string, unknown>)[key]) === want;
  });
}
