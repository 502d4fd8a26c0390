import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { aggregates } from '../src/aggregates';
import { parseLegacySubject } from '../src/legacy-subjects';
import { MAX_STREAM_PARTITIONS, partitionOf } from '../src/partitions';
import {
  aggregateWildcard,
  isPartitionCount,
  parseSubject,
  partitionFilter,
  subjectFor,
} from '../src/subjects';

const ids = fc.stringMatching(/^[A-Za-z0-9_:-]{1,40}$/);
const aggregate = fc.constantFrom(...aggregates);
const powersOfTwo = Array.from({ length: Math.log2(MAX_STREAM_PARTITIONS) + 1 }, (_, i) => 2 ** i);

/** NATS subject matching: `*` one token, `>` one or more at the end. */
function matches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return s.length > i;
    if (i >= s.length || (f[i] !== '*' && f[i] !== s[i])) return false;
  }
  return f.length === s.length;
}

describe('event subjects', () => {
  it('spell the low six bits of the id hash, low first, between aggregate and id', () => {
    // FNV-1a 32 of "foobar" is 0xbf9cf968: low bits 0,0,0,1,0,1 (0x68 = 0b1101000).
    expect(subjectFor('shop', 'cart', 'foobar')).toBe('shop.cart.0.0.0.1.0.1.foobar');
  });

  it('round-trip through parseSubject, for every aggregate and any valid id', () => {
    fc.assert(
      fc.property(aggregate, ids, (name, id) => {
        expect(parseSubject('shop', subjectFor('shop', name, id))).toEqual({ aggregate: name, id });
      }),
    );
  });

  it('refuse ids that would break a subject token, and subjects of another prefix or layout', () => {
    for (const bad of ['a.b', 'a*', '>', 'a b', '']) expect(() => subjectFor('shop', 'cart', bad)).toThrow();
    const good = subjectFor('shop', 'cart', 'u-1');
    expect(() => parseSubject('other', good)).toThrow();
    expect(() => parseSubject('shop', 'shop.cart.u-1')).toThrow();
    expect(() => parseSubject('shop', good.replace('.u-1', '.u-2'))).toThrow();
    expect(() => parseSubject('shop', good.replace('.cart.', '.nothing.'))).toThrow();
  });

  it('refuse any subject that is not exactly one a valid id is stored under', () => {
    // A subject one edit away from a stored one: each token changed, dropped or doubled.
    const edits = (subject: string) => {
      const tokens = subject.split('.');
      return tokens.flatMap((token, i) => {
        const put = (replacement: string[]) =>
          [...tokens.slice(0, i), ...replacement, ...tokens.slice(i + 1)].join('.');
        const changed = token === '0' ? '1' : token === '1' ? '0' : `${token}x`;
        return [put([changed]), put([]), put([token, token])];
      });
    };
    fc.assert(
      fc.property(aggregate, ids, (name, id) => {
        for (const edited of edits(subjectFor('shop', name, id))) {
          let parsed: { aggregate: string; id: string };
          try {
            parsed = parseSubject('shop', edited);
          } catch {
            continue;
          }
          // An id edited into another valid one names that id's own subject.
          expect(edited).toBe(subjectFor('shop', parsed.aggregate as typeof name, parsed.id));
        }
      }),
    );
  });

  it('of an aggregate type all match its wildcard, and none of another type does', () => {
    fc.assert(
      fc.property(aggregate, aggregate, ids, (name, other, id) => {
        const subject = subjectFor('shop', name, id);
        expect(matches(aggregateWildcard('shop', name), subject)).toBe(true);
        expect(matches(aggregateWildcard('shop'), subject)).toBe(true);
        expect(matches(aggregateWildcard('shop', other), subject)).toBe(name === other);
      }),
    );
  });

  it('of the previous layout match no wildcard, and are read only by parseLegacySubject', () => {
    expect(matches(aggregateWildcard('shop'), 'shop.cart.u-1')).toBe(false);
    expect(matches(aggregateWildcard('shop', 'cart'), 'shop.cart.u-1')).toBe(false);
    expect(parseLegacySubject('shop', 'shop.cart.u-1')).toEqual({ aggregate: 'cart', id: 'u-1' });
    expect(parseLegacySubject('shop', subjectFor('shop', 'cart', 'u-1'))).toBeNull();
    expect(parseLegacySubject('shop', 'shop.nothing.u-1')).toBeNull();
  });
});

describe('partitionFilter', () => {
  it('takes powers of two up to 64 only, and an index among them', () => {
    expect(powersOfTwo).toEqual([1, 2, 4, 8, 16, 32, 64]);
    for (const bad of [0, 3, 6, 48, 128, 1.5]) {
      expect(isPartitionCount(bad)).toBe(false);
      expect(() => partitionFilter('shop', 'cart', 0, bad)).toThrow(/power of two/);
    }
    expect(() => partitionFilter('shop', 'cart', 4, 4)).toThrow();
    expect(partitionFilter('shop', 'cart', 5, 8)).toBe('shop.cart.1.0.1.*.*.*.*');
    expect(partitionFilter('shop', undefined, 0, 1)).toBe('shop.*.*.*.*.*.*.*.*');
    expect(aggregateWildcard('shop')).toBe('shop.*.*.*.*.*.*.*.*');
    expect(aggregateWildcard('shop', 'cart')).toBe('shop.cart.*.*.*.*.*.*.*');
  });

  it('for every count, each subject matches exactly the filter of its partition (partitionOf)', () => {
    fc.assert(
      fc.property(aggregate, ids, (name, id) => {
        const subject = subjectFor('shop', name, id);
        for (const count of powersOfTwo) {
          const own = partitionOf(id, count);
          for (let index = 0; index < count; index++) {
            expect(matches(partitionFilter('shop', name, index, count), subject)).toBe(index === own);
            expect(matches(partitionFilter('shop', undefined, index, count), subject)).toBe(index === own);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("of one aggregate type matches no other type's subjects", () => {
    fc.assert(
      fc.property(aggregate, aggregate, ids, (name, other, id) => {
        fc.pre(name !== other);
        const subject = subjectFor('shop', other, id);
        expect(matches(partitionFilter('shop', name, partitionOf(id, 4), 4), subject)).toBe(false);
      }),
    );
  });
});
