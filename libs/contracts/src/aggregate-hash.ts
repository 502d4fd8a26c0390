/**
 * FNV-1a (32 bits) of an aggregate id, the hash NATS's `partition()` subject mapping uses: it
 * places an aggregate in its partition (partitionOf) and spells that partition in its subjects
 * (subjectFor).
 */
export function aggregateHash(aggregateId: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(aggregateId, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
