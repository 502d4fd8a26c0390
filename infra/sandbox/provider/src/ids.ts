import { createHash, randomUUID } from 'node:crypto';
import { Address, getAddress, keccak256, toHex } from 'viem';

/**
 * A UUID that depends only on the seed, so a user keeps the same provider id, and a wallet the
 * same address, across restarts of the stand-in.
 */
export function stableUuid(seed: string): string {
  const bytes = createHash('sha256').update(seed).digest().subarray(0, 16);
  bytes.writeUInt8((bytes.readUInt8(6) & 0x0f) | 0x50, 6);
  bytes.writeUInt8((bytes.readUInt8(8) & 0x3f) | 0x80, 8);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function stableAddress(seed: string): Address {
  return getAddress(`0x${keccak256(toHex(seed)).slice(-40)}`);
}

/** Svix message ids are `msg_` plus an opaque alphanumeric string. */
export function messageId(): string {
  return `msg_${randomUUID().replace(/-/g, '')}`;
}
