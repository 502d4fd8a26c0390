/**
 * One of the `count` slices of a reaction's work: the events of the aggregates whose
 * partitionOf(id, count) is `index` (libs/contracts). Each slice has a consumer, an advisory lock
 * and so a holder of its own, so up to `count` processes run one reaction side by side, and
 * every event of one aggregate stays in one slice, in order.
 */
export interface ReactionPartition {
  readonly index: number;
  readonly count: number;
}

/** The partitions of a reaction split `count` ways (STREAM_PARTITIONS): one runner each. */
export function reactionPartitions(count: number): ReactionPartition[] {
  return Array.from({ length: count }, (_, index) => ({ index, count }));
}

/**
 * What a partition's consumer and lock names end with: nothing for an unsplit reaction, so one
 * partition keeps the names it always had. The count is part of it because a partition of
 * another count is another set of aggregates: a consumer reused across a change of
 * STREAM_PARTITIONS would carry an ack floor past events of aggregates it never had.
 */
export function partitionSuffix({ index, count }: ReactionPartition): string {
  return count === 1 ? '' : `_p${index}of${count}`;
}

/** The partition count `consumer` splits `reaction` by, or null when it is no consumer of it. */
export function partitionCountOfConsumer(consumer: string, reaction: string): number | null {
  const base = reactionConsumerName(reaction, { index: 0, count: 1 });
  if (consumer === base) return 1;
  const suffix = consumer.startsWith(base) ? /^_p\d+of(\d+)$/.exec(consumer.slice(base.length)) : null;
  return suffix ? Number(suffix[1]) : null;
}

export function reactionConsumerName(reaction: string, partition: ReactionPartition): string {
  return `reaction_${reaction}${partitionSuffix(partition)}`;
}
