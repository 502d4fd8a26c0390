/**
 * FNV-1a (32 bits) of an aggregate id, the hash NATS's `partition()` subject mapping uses: it
 * places an aggregate in its partition (partitionOf) and spells that partition in its subjects
 * (subjectFor).
 */
export function aggregateHash(aggregateId: string): number {
  let hash = 0x811c9dc5;
  // Ids are ASCII (a subject token's characters), where a character is its UTF-8 byte: hashed
  // without encoding the id first, as every stream message read and every append does.
  for (let i = 0; i < aggregateId.length; i++) {
    const code = aggregateId.charCodeAt(i);
    if (code > 0x7f) return utf8Hash(aggregateId);
    hash = Math.imul(hash ^ code, 0x01000193) >>> 0;
  }
  return hash;
}

function utf8Hash(aggregateId: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(aggregateId, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}
