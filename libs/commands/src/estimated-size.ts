import { GrowOnlySet } from '@shop/domain';

/**
 * Roughly how many bytes of heap a plain value takes, as V8 lays it out on 64-bit (pointer
 * compression off): headers, slots, hash-table slack and string characters. Strings V8 keeps
 * as concatenation trees or shares between values make the real figure differ, by up to about
 * twice either way: close enough to bound a cache by bytes. It walks the value, so it costs
 * about what folding it did. Shared substructure is counted once.
 */
export function estimatedSize(value: unknown, seen: Set<object> = new Set()): number {
  switch (typeof value) {
    case 'string':
      return 16 + value.length + (value.length & 7 ? 8 - (value.length & 7) : 0);
    case 'number':
    case 'bigint':
      return 16;
    case 'boolean':
    case 'undefined':
    case 'symbol':
    case 'function':
      return 0;
  }
  if (value === null || seen.has(value as object)) return 0;
  const object = value as object;
  seen.add(object);
  if (object instanceof Map) {
    let bytes = 96;
    for (const [key, entry] of object) bytes += 40 + estimatedSize(key, seen) + estimatedSize(entry, seen);
    return bytes;
  }
  if (object instanceof Set) {
    let bytes = 96;
    for (const entry of object) bytes += 32 + estimatedSize(entry, seen);
    return bytes;
  }
  // Its members are in a private field, which walking its fields would miss; weighing them
  // remembers each one's weight, so a set of a long history is not walked again on each command.
  if (object instanceof GrowOnlySet) return 128 + object.weigh(memberBytes);
  if (Array.isArray(object)) {
    let bytes = 32 + 8 * object.length;
    for (const entry of object) bytes += estimatedSize(entry, seen);
    return bytes;
  }
  if (object instanceof Date) return 48;
  if (ArrayBuffer.isView(object)) return 96 + object.byteLength;
  let bytes = 32;
  for (const [, entry] of Object.entries(object)) bytes += 8 + estimatedSize(entry, seen);
  return bytes;
}

/**
 * One function for every GrowOnlySet (see GrowOnlySet.weigh): a member, its map entry, its list
 * slot and its running total.
 */
const memberBytes = (member: unknown) => 56 + estimatedSize(member);
