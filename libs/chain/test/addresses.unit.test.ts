import { describe, expect, it } from 'vitest';
import { isSuiAddress, normalizeAddress, sameAddress, sameStructType } from '@shop/chain';

const FULL = '0x00000000000000000000000000000000000000000000000000000000000000ab';

describe('address helpers', () => {
  it('normalizes short, upper-case and prefixless forms to 0x + 64 lower-case hex', () => {
    expect(normalizeAddress('0xAB')).toBe(FULL);
    expect(normalizeAddress('ab')).toBe(FULL);
    expect(normalizeAddress(FULL.toUpperCase().replace('0X', '0x'))).toBe(FULL);
  });

  it('refuses what is not an address', () => {
    for (const bad of ['', '0x', 'zz', `0x${'a'.repeat(65)}`, '0x12 ']) {
      expect(isSuiAddress(bad)).toBe(false);
      expect(() => normalizeAddress(bad)).toThrow(TypeError);
    }
  });

  it('compares addresses after normalizing, and nothing equals garbage', () => {
    expect(sameAddress('0xab', FULL)).toBe(true);
    expect(sameAddress('0xAB', 'ab')).toBe(true);
    expect(sameAddress('0xab', '0xac')).toBe(false);
    expect(sameAddress('garbage', 'garbage')).toBe(false);
  });

  it('compares struct types with short and full package addresses', () => {
    expect(sameStructType('0x2::sui::SUI', `0x${'0'.repeat(63)}2::sui::SUI`)).toBe(true);
    expect(sameStructType('0xab::payment::PaymentReceipt', `${FULL}::payment::PaymentReceipt`)).toBe(true);
    expect(sameStructType('0xab::payment::PaymentReceipt', '0xac::payment::PaymentReceipt')).toBe(false);
    expect(sameStructType('not a type', 'not a type')).toBe(false);
  });
});
