import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { aggregateHash } from '../src/aggregate-hash';
import { partitionOf, partitionOfSubject } from '../src/partitions';
import { subjectFor } from '../src/subjects';

describe('partitionOf', () => {
  it('is FNV-1a 32 of the id modulo the count (published FNV-1a test vectors)', () => {
    expect(partitionOf('a', 0xffffffff)).toBe(0xe40c292c % 0xffffffff);
    expect(partitionOf('foobar', 0xffffffff)).toBe(0xbf9cf968 % 0xffffffff);
  });

  it('hashes the UTF-8 bytes of any id, ASCII or not', () => {
    const fnv = (id: string) =>
      [...Buffer.from(id, 'utf8')].reduce(
        (hash, byte) => Math.imul(hash ^ byte, 0x01000193) >>> 0,
        0x811c9dc5,
      );
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (id) => aggregateHash(id) === fnv(id)));
    expect(aggregateHash('é')).toBe(fnv('é'));
  });

  it('puts everything in partition 0 of 1, and spreads ids over every partition of 4', () => {
    const ids = Array.from({ length: 4000 }, (_, i) => `user-${i}`);
    expect(new Set(ids.map((id) => partitionOf(id, 1)))).toEqual(new Set([0]));
    const counts = [0, 0, 0, 0];
    for (const id of ids) counts[partitionOf(id, 4)]!++;
    for (const count of counts) expect(count).toBeGreaterThan(800);
  });

  it('reads the id from an event subject', () => {
    expect(partitionOfSubject('shop', subjectFor('shop', 'cart', 'user-7'), 4)).toBe(
      partitionOf('user-7', 4),
    );
    expect(() => partitionOfSubject('shop', subjectFor('other', 'cart', 'user-7'), 4)).toThrow();
  });

  it('refuses a count that is not a positive integer', () => {
    expect(() => partitionOf('a', 0)).toThrow();
    expect(() => partitionOf('a', 1.5)).toThrow();
  });
});
