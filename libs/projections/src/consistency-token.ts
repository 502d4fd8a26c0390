import { AggregateName, aggregates, MAX_STREAM_PARTITIONS } from '@shop/contracts';

/**
 * What a position is of: an aggregate's commits, or with partitioned read models (N > 1) those of
 * one partition of the aggregate (`cart/2`), whose readers are that partition's units only.
 */
export type ConsistencyKey = AggregateName | `${AggregateName}/${number}`;

/**
 * The stream positions a client must be able to read before its next read is answered: per
 * aggregate (or partition of one), the sequence of its own latest write that was answered before
 * it was readable. Written as `cart:120|session:455`, or `cart/2:120|session/0:455` with
 * partitions. It comes back from the client, so it is only ever a reason to wait (bounded), never
 * a reason to trust: anything malformed is dropped.
 */
export type ConsistencyPositions = ReadonlyMap<ConsistencyKey, number>;

const known = new Set<string>(aggregates);
const maxLength = 512;

export function consistencyKey(aggregate: AggregateName, partition?: number): ConsistencyKey {
  return partition === undefined ? aggregate : `${aggregate}/${partition}`;
}

/** The aggregate of a key, and its partition when it names one. */
export function keyParts(key: ConsistencyKey): { aggregate: AggregateName; partition?: number } {
  const slash = key.indexOf('/');
  if (slash < 0) return { aggregate: key as AggregateName };
  return { aggregate: key.slice(0, slash) as AggregateName, partition: Number(key.slice(slash + 1)) };
}

function parseKey(text: string): ConsistencyKey | null {
  const [aggregate, partition, ...rest] = text.split('/');
  if (rest.length > 0 || !aggregate || !known.has(aggregate)) return null;
  if (partition === undefined) return aggregate as AggregateName;
  if (!/^(0|[1-9][0-9]?)$/.test(partition) || Number(partition) >= MAX_STREAM_PARTITIONS) return null;
  return consistencyKey(aggregate as AggregateName, Number(partition));
}

export function parseConsistencyToken(token: string | undefined): Map<ConsistencyKey, number> {
  const positions = new Map<ConsistencyKey, number>();
  if (!token || token.length > maxLength) return positions;
  for (const entry of token.split('|')) {
    const [keyText, sequence, ...rest] = entry.split(':');
    const key = parseKey(keyText ?? '');
    if (rest.length > 0 || !key || !/^[1-9][0-9]{0,15}$/.test(sequence ?? '')) continue;
    const value = Number(sequence);
    if (!Number.isSafeInteger(value)) continue;
    positions.set(key, Math.max(value, positions.get(key) ?? 0));
  }
  return positions;
}

export function formatConsistencyToken(positions: ConsistencyPositions): string {
  return [...positions]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, sequence]) => `${key}:${sequence}`)
    .join('|');
}

/** The later position of each key in either. */
export function mergeConsistencyPositions(
  a: ConsistencyPositions,
  b: ConsistencyPositions,
): Map<ConsistencyKey, number> {
  const merged = new Map(a);
  for (const [key, sequence] of b) merged.set(key, Math.max(sequence, merged.get(key) ?? 0));
  return merged;
}
