import { aggregateHash } from './aggregate-hash';
import { AggregateName, isAggregateName } from './aggregates';

/** Ids become one subject token: no dots, wildcards or whitespace. */
const aggregateIdPattern = /^[A-Za-z0-9_:-]{1,200}$/;

/**
 * The tokens between an event subject's aggregate and its id: the low bits of the id's hash, low
 * bit first, one token (`0`/`1`) each. With a power-of-two count of partitions, an aggregate's
 * partition is the low log2(count) bits of that hash (partitionOf), so the subjects of one
 * partition are one wildcard subject (partitionFilter): nats-server 2.9 gives a consumer one
 * filter subject and has no subject transform, so this is how a partition's consumer is
 * delivered only its own messages. Six bits: up to 64 partitions (MAX_STREAM_PARTITIONS).
 */
export const PARTITION_BITS = 6;

/**
 * The layout of event subjects, `<prefix>.<aggregate>.<b0>…<b5>.<id>`: the event stream's
 * description names it, so a process built for another layout refuses the stream (verifyStream),
 * and `npm run migrate-layout` moves a stream of the previous one (`<prefix>.<aggregate>.<id>`).
 */
export const SUBJECT_LAYOUT = 'event subjects v2: <prefix>.<aggregate>.<6 hash bits>.<id>';

export function isValidAggregateId(id: string): boolean {
  return aggregateIdPattern.test(id);
}

/** The subject tokens of each value of the low PARTITION_BITS bits, low bit first. */
const bitTokens = Array.from({ length: 2 ** PARTITION_BITS }, (_, value) =>
  Array.from({ length: PARTITION_BITS }, (_, bit) => (value >>> bit) & 1).join('.'),
);

function hashBits(aggregateId: string): string {
  return bitTokens[aggregateHash(aggregateId) & (2 ** PARTITION_BITS - 1)]!;
}

/** The subject every event of one aggregate is stored under (its appends' concurrency check too). */
export function subjectFor(prefix: string, aggregate: AggregateName, id: string): string {
  if (!isValidAggregateId(id))
    throw new Error(`invalid aggregate id for a subject token: ${JSON.stringify(id)}`);
  return `${prefix}.${aggregate}.${hashBits(id)}.${id}`;
}

/**
 * Every event subject of one aggregate type, or of every type: the event stream's subjects, so a
 * publish of any other shape under the prefix (the previous layout's) is stored nowhere.
 */
export function aggregateWildcard(prefix: string, aggregate?: AggregateName): string {
  return partitionFilter(prefix, aggregate, 0, 1);
}

/** Whether `count` partitions can each be one filter subject: a power of two up to 2^PARTITION_BITS. */
export function isPartitionCount(count: number): boolean {
  return Number.isInteger(count) && count >= 1 && count <= 2 ** PARTITION_BITS && (count & (count - 1)) === 0;
}

/**
 * The one filter subject of partition `index` of `count` (see PARTITION_BITS): the partition's
 * bits, low first, then a wildcard for each other bit and the id. Of one aggregate type, or of
 * every one without `aggregate`.
 */
export function partitionFilter(
  prefix: string,
  aggregate: AggregateName | undefined,
  index: number,
  count: number,
): string {
  if (!isPartitionCount(count))
    throw new Error(`a partition count is a power of two from 1 to ${2 ** PARTITION_BITS}: ${count}`);
  if (!Number.isInteger(index) || index < 0 || index >= count)
    throw new Error(`partition ${index} is not one of ${count}`);
  const fixed = Math.log2(count);
  const tokens = Array.from({ length: PARTITION_BITS }, (_, bit) =>
    bit < fixed ? String((index >>> bit) & 1) : '*',
  );
  return `${prefix}.${aggregate ?? '*'}.${tokens.join('.')}.*`;
}

export function parseSubject(prefix: string, subject: string): { aggregate: AggregateName; id: string } {
  // Read by position, not split: every stream message read is parsed, so this is a hot path.
  const bitsLength = 2 * PARTITION_BITS - 1;
  const afterPrefix = prefix.length + 1;
  const afterAggregate = subject.indexOf('.', afterPrefix) + 1;
  const aggregate = subject.slice(afterPrefix, afterAggregate - 1);
  const afterBits = afterAggregate + bitsLength + 1;
  const id = subject.slice(afterBits);
  if (
    !subject.startsWith(prefix) ||
    subject.charCodeAt(prefix.length) !== 0x2e ||
    afterAggregate === 0 ||
    !isAggregateName(aggregate) ||
    subject.charCodeAt(afterBits - 1) !== 0x2e ||
    !isValidAggregateId(id) ||
    subject.slice(afterAggregate, afterBits - 1) !== hashBits(id)
  ) {
    throw new Error(`not an event subject under "${prefix}": ${subject}`);
  }
  return { aggregate, id };
}
