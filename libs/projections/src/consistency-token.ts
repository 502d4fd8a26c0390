import { AggregateName, aggregates } from '@shop/contracts';

/**
 * The stream positions a client must be able to read before its next read is answered: per
 * aggregate, the sequence of its own latest write that was answered before it was readable.
 * Written as `cart:120|session:455`. It comes back from the client, so it is only ever a reason
 * to wait (bounded), never a reason to trust: anything malformed is dropped.
 */
export type ConsistencyPositions = ReadonlyMap<AggregateName, number>;

const known = new Set<string>(aggregates);
const maxLength = 512;

export function parseConsistencyToken(token: string | undefined): Map<AggregateName, number> {
  const positions = new Map<AggregateName, number>();
  if (!token || token.length > maxLength) return positions;
  for (const entry of token.split('|')) {
    const [aggregate, sequence, ...rest] = entry.split(':');
    if (rest.length > 0 || !aggregate || !known.has(aggregate) || !/^[1-9][0-9]{0,15}$/.test(sequence ?? ''))
      continue;
    const value = Number(sequence);
    if (!Number.isSafeInteger(value)) continue;
    const name = aggregate as AggregateName;
    positions.set(name, Math.max(value, positions.get(name) ?? 0));
  }
  return positions;
}

export function formatConsistencyToken(positions: ConsistencyPositions): string {
  return [...positions]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([aggregate, sequence]) => `${aggregate}:${sequence}`)
    .join('|');
}

/** The later position of each aggregate in either. */
export function mergeConsistencyPositions(
  a: ConsistencyPositions,
  b: ConsistencyPositions,
): Map<AggregateName, number> {
  const merged = new Map(a);
  for (const [aggregate, sequence] of b)
    merged.set(aggregate, Math.max(sequence, merged.get(aggregate) ?? 0));
  return merged;
}
