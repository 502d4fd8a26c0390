/** A decimal token amount in micro-units (6 decimals), exactly: no float ever touches money. */
export function toMicroUnits(decimal: string): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(decimal.trim());
  if (!match) throw new Error(`not a decimal amount: ${decimal}`);
  const fraction = (match[2] ?? '').slice(0, 6).padEnd(6, '0');
  return BigInt(match[1]!) * 1_000_000n + BigInt(fraction);
}

export const centsToMicroUnits = (cents: number): bigint => BigInt(cents) * 10_000n;
