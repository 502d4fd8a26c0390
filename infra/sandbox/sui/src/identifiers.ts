import { randomBytes } from 'node:crypto';
import { toBase58, toHex } from '@mysten/sui/utils';

/** A fresh 32-byte object id or address, `0x` + 64 hex like the chain's. */
export function randomObjectId(): string {
  return `0x${toHex(randomBytes(32))}`;
}

/** A fresh object or transaction digest: base58 of 32 bytes, which the SDK checks locally. */
export function randomDigest(): string {
  return toBase58(randomBytes(32));
}

/** The digest the node reports for a deleted object (32 bytes of 99). */
export const DELETED_OBJECT_DIGEST = toBase58(new Uint8Array(32).fill(99));

/** Digest of the genesis "transaction" that objects the stand-in starts with were created by. */
export const GENESIS_DIGEST = toBase58(new Uint8Array(32));
