import { parseSubject } from './subjects';

/**
 * The most partitions a stream is split into (STREAM_PARTITIONS): each is a consumer, a lock and
 * a checkpoint row per projection and reaction, and a consistency token names one of them.
 */
export const MAX_STREAM_PARTITIONS = 64;

/**
 * The partition of an aggregate among `partitions`: FNV-1a (32 bits) of its id, modulo the
 * count, the hash NATS's `partition()` subject mapping uses, so every event of one aggregate
 * falls in one partition and keeps its order there, and the assignment would survive a move of
 * the split into the server's subject mapping.
 */
export function partitionOf(aggregateId: string, partitions: number): number {
  if (!Number.isInteger(partitions) || partitions < 1)
    throw new Error(`partitions must be a positive integer: ${partitions}`);
  if (partitions === 1) return 0;
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(aggregateId, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % partitions;
}

/** The partition of the event subject `subject` (see partitionOf). */
export function partitionOfSubject(prefix: string, subject: string, partitions: number): number {
  return partitions === 1 ? 0 : partitionOf(parseSubject(prefix, subject).id, partitions);
}
