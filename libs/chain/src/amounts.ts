/**
 * Exact conversions between base units ("MIST") and decimal strings. Amounts are bigint end to
 * end because a float cannot hold every u64, and a rounding error in a payment check is a
 * security bug.
 */

/** USDC has 6 decimals: 1 USDC = 1,000,000 MIST (the backend spec's name for base units). */
export const USDC_DECIMALS = 6;
export const SUI_DECIMALS = 9;
export const MIST_PER_USDC = 10n ** BigInt(USDC_DECIMALS);
export const MIST_PER_SUI = 10n ** BigInt(SUI_DECIMALS);

const INTEGER = /^-?\d+$/;
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** Parses a base-unit integer string as the chain renders u64/i128 values ("2500000", "-12"). */
export function parseMist(text: string): bigint {
  if (!INTEGER.test(text)) throw new RangeError(`not an integer amount: ${JSON.stringify(text)}`);
  return BigInt(text);
}

/** 2_500_000n -> "2.5" (6 decimals). Trailing zeros are dropped; there is never an exponent. */
export function mistToDecimal(mist: bigint, decimals: number = USDC_DECIMALS): string {
  assertDecimals(decimals);
  const negative = mist < 0n;
  const magnitude = negative ? -mist : mist;
  const scale = 10n ** BigInt(decimals);
  const whole = magnitude / scale;
  const fraction = (magnitude % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * "2.5" -> 2_500_000n (6 decimals). Refuses rather than rounds anything that does not fit the
 * coin's precision, and refuses exponents, signs other than a leading minus, and blanks.
 */
export function decimalToMist(text: string, decimals: number = USDC_DECIMALS): bigint {
  assertDecimals(decimals);
  const match = DECIMAL.exec(text);
  if (!match) throw new RangeError(`not a decimal amount: ${JSON.stringify(text)}`);
  const [, sign, whole = '0', fraction = ''] = match;
  if (fraction.length > decimals) {
    throw new RangeError(`${text} has more than ${decimals} decimal places`);
  }
  const mist = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
  return sign ? -mist : mist;
}

function assertDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 38) {
    throw new RangeError(`decimals must be an integer between 0 and 38, got ${decimals}`);
  }
}
