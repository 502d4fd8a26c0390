import type { StoredObject } from './object-store';

/*
 * A simplified gas schedule with the real one's structure (computation + storage − rebate,
 * charged to the gas coin) so budgets, balance changes and coin versions behave like the chain's.
 * The numbers are the chain's order of magnitude, not its exact metering.
 */

/** Computation units per command; the chain's smallest computation bucket is 1,000 units. */
export const COMPUTATION_UNITS_PER_COMMAND = 1_000n;
/** 76 MIST storage price × 100 storage units per byte. */
const STORAGE_MIST_PER_BYTE = 7_600n;
/** Object metadata (id, version, digest, owner, type) stored besides the fields. */
const OBJECT_OVERHEAD_BYTES = 100;
/** 99% of an object's storage fee is rebated when it is mutated or deleted. */
const REBATE_BASIS_POINTS = 9_900n;
export const MAX_GAS_BUDGET = 50_000_000_000n;

export function storageCostOf(object: Pick<StoredObject, 'type' | 'fields'>): bigint {
  const bytes =
    Buffer.byteLength(JSON.stringify(object.fields)) + Buffer.byteLength(object.type) + OBJECT_OVERHEAD_BYTES;
  return BigInt(bytes) * STORAGE_MIST_PER_BYTE;
}

export function rebateOf(previousStorageCost: bigint): { rebate: bigint; nonRefundable: bigint } {
  const rebate = (previousStorageCost * REBATE_BASIS_POINTS) / 10_000n;
  return { rebate, nonRefundable: previousStorageCost - rebate };
}
