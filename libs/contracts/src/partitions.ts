import { aggregateHash } from './aggregate-hash';
import { PARTITION_BITS, parseSubject } from './subjects';

/**
 * The most partitions a stream is split into (STREAM_PARTITIONS): each is a consumer, a lock and
 * a checkpoint row per projection and reaction, and a consistency token names one of them. As
 * many as the hash bits an event subject spells (PARTITION_BITS).
 */
export const MAX_STREAM_PARTITIONS = 2 ** PARTITION_BITS;

/**
 * The partition of an aggregate among `partitions`: FNV-1a (32 bits) of its id, modulo the
 * count, the hash NATS's `partition()` subject mapping uses, so every event of one aggregate
 * falls in one partition and keeps its order there. With a power-of-two count (the only ones
 * STREAM_PARTITIONS takes: see isPartitionCount) that is the hash's low bits, which the
 * aggregate's subject spells (subjectFor), so a partition is one filter subject (partitionFilter).
 */
export function partitionOf(aggregateId: string, partitions: number): number {
  if (!Number.isInteger(partitions) || partitions < 1)
    throw new Error(`partitions must be a positive integer: ${partitions}`);
  if (partitions === 1) return 0;
  return aggregateHash(aggregateId) % partitions;
}

/** The partition of the event subject `subject` (see partitionOf). */
export function partitionOfSubject(prefix: string, subject: string, partitions: number): number {
  return partitions === 1 ? 0 : partitionOf(parseSubject(prefix, subject).id, partitions);
}
