import { describe, expect, it } from 'vitest';
import { CartState, GrowOnlySet, initialCartState } from '@shop/domain';
import { estimatedSize } from '../src/estimated-size';
import { decodeState, encodeState, hasShapeOf } from '../src/snapshot-codec';

const withIds = (ids: string[]): CartState => ({ ...initialCartState(), knownItemIds: GrowOnlySet.of(ids) });
const roundTrip = (state: CartState) =>
  decodeState(JSON.parse(JSON.stringify(encodeState(state)))) as CartState;

describe('snapshot codec, for a GrowOnlySet', () => {
  it("writes a cart's known item ids and reads them back as a GrowOnlySet, in order, which grows like the original", () => {
    const older = GrowOnlySet.of(['a', 'b']);
    older.add('c');
    const decoded = roundTrip({ ...initialCartState(), knownItemIds: older });
    expect(decoded.knownItemIds).toBeInstanceOf(GrowOnlySet);
    expect([...decoded.knownItemIds]).toEqual(['a', 'b']);
    expect(decoded).toEqual({ ...initialCartState(), knownItemIds: GrowOnlySet.of(['a', 'b']) });
    expect([...decoded.knownItemIds.add('d')]).toEqual(['a', 'b', 'd']);
  });

  it("finds a body that holds the ids as a plain set (the shape before) not of the cart's shape", () => {
    const before = { ...initialCartState(), knownItemIds: new Set(['a']) };
    expect(hasShapeOf(decodeState(encodeState(before)), initialCartState())).toBe(false);
    expect(hasShapeOf(roundTrip(withIds(['a'])), initialCartState())).toBe(true);
  });

  it('counts every id the set holds in the size estimate that bounds the aggregate cache', () => {
    const ids = Array.from(
      { length: 1000 },
      (_, n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    );
    expect(estimatedSize(withIds(ids)) - estimatedSize(withIds([]))).toBeGreaterThanOrEqual(1000 * (40 + 52));
  });
});
