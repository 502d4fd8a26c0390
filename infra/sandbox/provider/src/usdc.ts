import { formatUnits, parseUnits } from 'viem';
import { z } from 'zod';

export const usdcDecimals = 6;

/** A decimal string in token units, at most as precise as the token itself. */
export const usdcAmount = z
  .string()
  .regex(/^\d+(\.\d{1,6})?$/, 'decimal USDC amount with at most 6 decimals');

export function toBaseUnits(amount: string): bigint {
  return parseUnits(amount, usdcDecimals);
}

export function fromBaseUnits(raw: bigint): string {
  return formatUnits(raw, usdcDecimals);
}

export function usdcMoney(raw: bigint): { amount: string; currency: 'usdc' } {
  return { amount: fromBaseUnits(raw), currency: 'usdc' };
}
