import { describe, expect, it } from 'vitest';
import {
  decimalToMist,
  MIST_PER_SUI,
  MIST_PER_USDC,
  mistToDecimal,
  parseMist,
  SUI_DECIMALS,
} from '@shop/chain';

describe('MIST <-> decimal conversions', () => {
  it('uses 1 USDC = 1,000,000 MIST and 1 SUI = 10^9 MIST', () => {
    expect(MIST_PER_USDC).toBe(1_000_000n);
    expect(MIST_PER_SUI).toBe(1_000_000_000n);
    expect(decimalToMist('1')).toBe(1_000_000n);
    expect(mistToDecimal(1_000_000n)).toBe('1');
  });

  it.each([
    ['2.5', 2_500_000n],
    ['0.000001', 1n],
    ['0', 0n],
    ['1000000.123456', 1_000_000_123_456n],
    ['-3.25', -3_250_000n],
    ['18446744073709.551615', 18_446_744_073_709_551_615n],
  ])('%s USDC is %s MIST and back', (decimal, mist) => {
    expect(decimalToMist(decimal)).toBe(mist);
    expect(mistToDecimal(mist)).toBe(decimal);
  });

  it('keeps values no float can hold', () => {
    const large = 2n ** 64n - 1n;
    expect(mistToDecimal(large, SUI_DECIMALS)).toBe('18446744073.709551615');
    expect(decimalToMist('18446744073.709551615', SUI_DECIMALS)).toBe(large);
    expect(decimalToMist('0.1') + decimalToMist('0.2')).toBe(decimalToMist('0.3'));
  });

  it('normalizes trailing zeros on the way out and accepts them on the way in', () => {
    expect(mistToDecimal(2_500_000n)).toBe('2.5');
    expect(decimalToMist('2.500000')).toBe(2_500_000n);
    expect(decimalToMist('007.1')).toBe(7_100_000n);
  });

  it.each(['', ' 1', '1 ', '1e6', '+1', '.5', '1.', '1,5', 'NaN', '0x10', '--1'])('refuses %j', (text) => {
    expect(() => decimalToMist(text)).toThrow(RangeError);
  });

  it('refuses precision the coin does not have instead of rounding', () => {
    expect(() => decimalToMist('0.0000001')).toThrow(/more than 6 decimal places/);
    expect(decimalToMist('0.0000001', SUI_DECIMALS)).toBe(100n);
  });

  it('parses the chain’s integer strings strictly', () => {
    expect(parseMist('-2500000')).toBe(-2_500_000n);
    expect(() => parseMist('2.5')).toThrow(RangeError);
    expect(() => parseMist('')).toThrow(RangeError);
  });

  it('refuses a nonsensical number of decimals', () => {
    expect(() => mistToDecimal(1n, -1)).toThrow(RangeError);
    expect(() => decimalToMist('1', 1.5)).toThrow(RangeError);
  });
});
