import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';

const SHORT_OR_FULL_HEX_ADDRESS = /^(0x)?[0-9a-fA-F]{1,64}$/;

/**
 * The canonical form (`0x` + 64 lower-case hex) of an address or object id. The chain, the
 * database and user input spell the same address with and without leading zeros or in either
 * case, so every comparison and every key goes through this.
 */
export function normalizeAddress(value: string): string {
  if (!SHORT_OR_FULL_HEX_ADDRESS.test(value)) throw new TypeError('not a Sui address or object id');
  return normalizeSuiAddress(value);
}

export function isSuiAddress(value: string): boolean {
  return SHORT_OR_FULL_HEX_ADDRESS.test(value);
}

/** Comparing untrusted strings: anything that is not an address is equal to nothing. */
export function sameAddress(a: string, b: string): boolean {
  return isSuiAddress(a) && isSuiAddress(b) && normalizeSuiAddress(a) === normalizeSuiAddress(b);
}

/** `0x2::sui::SUI` and `0x000…002::sui::SUI` are one type; compare struct tags in normalized form. */
export function sameStructType(a: string, b: string): boolean {
  try {
    return normalizeStructTag(a) === normalizeStructTag(b);
  } catch {
    return false;
  }
}
