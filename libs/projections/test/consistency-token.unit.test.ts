import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregates } from '@shop/contracts';
import {
  formatConsistencyToken,
  mergeConsistencyPositions,
  parseConsistencyToken,
} from '../src/consistency-token';

const runs = Number(process.env.PROPERTY_RUNS ?? 300);
const positions = fc
  .dictionary(fc.constantFrom(...aggregates), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }))
  .map((record) => new Map(Object.entries(record)) as Map<(typeof aggregates)[number], number>);

describe('consistency token', () => {
  it('reads back exactly what it wrote', () => {
    fc.assert(
      fc.property(positions, (written) => {
        expect(parseConsistencyToken(formatConsistencyToken(written))).toEqual(written);
      }),
      { numRuns: runs },
    );
  });

  it('turns anything a client sends into known aggregates at safe positive sequences, never throwing', () => {
    const noise = fc.oneof(
      fc.string({ maxLength: 600 }),
      fc
        .array(
          fc.tuple(
            fc.oneof(fc.constantFrom(...aggregates, 'users', '__proto__', ''), fc.string({ maxLength: 8 })),
            fc.oneof(fc.bigInt({ min: -10n, max: 10n ** 20n }).map(String), fc.string({ maxLength: 6 })),
          ),
          { maxLength: 12 },
        )
        .map((pairs) => pairs.map(([a, s]) => `${a}:${s}`).join('|')),
    );
    fc.assert(
      fc.property(noise, (token) => {
        for (const [aggregate, sequence] of parseConsistencyToken(token)) {
          expect(aggregates).toContain(aggregate);
          expect(Number.isSafeInteger(sequence) && sequence > 0).toBe(true);
        }
      }),
      { numRuns: runs },
    );
  });

  it('keeps the later position of each aggregate when merging', () => {
    fc.assert(
      fc.property(positions, positions, (a, b) => {
        const merged = mergeConsistencyPositions(a, b);
        for (const aggregate of new Set([...a.keys(), ...b.keys()])) {
          expect(merged.get(aggregate)).toBe(Math.max(a.get(aggregate) ?? 0, b.get(aggregate) ?? 0));
        }
      }),
      { numRuns: runs },
    );
  });

  it('drops a malformed entry and keeps the rest', () => {
    expect(parseConsistencyToken('cart:12|cart:x|nope:3|session:0|session:7|user:5:1')).toEqual(
      new Map([
        ['cart', 12],
        ['session', 7],
      ]),
    );
  });
});

describe('consistency token with partitions', () => {
  it('reads back partition keys and keeps the aggregate form as it was', () => {
    const written = new Map([
      ['cart/2', 120],
      ['session/0', 455],
      ['user', 9],
    ] as const);
    const token = formatConsistencyToken(written);
    expect(token).toBe('cart/2:120|session/0:455|user:9');
    expect(parseConsistencyToken(token)).toEqual(new Map(written));
  });

  it('drops a partition that is not a small plain number, or a key with more parts', () => {
    expect(
      parseConsistencyToken(
        'cart/02:1|cart/64:2|cart/-1:3|cart/:4|cart/1/2:5|cart/x:6|nope/1:7|cart/63:8|cart/0:9',
      ),
    ).toEqual(
      new Map([
        ['cart/63', 8],
        ['cart/0', 9],
      ]),
    );
  });
});
