import { partitionOf, RecordedEvent } from '@shop/contracts';
import { AnyProjection } from './projection';

/**
 * The name of partition `index` of `count` of a projection: its checkpoint row, durable consumer
 * (after `projection_`), advisory lock key and announcement token. The whole name when there is
 * one partition, so N = 1 is today's naming. The count is part of the name, so rows of another
 * partitioning are never mistaken for this one's (see preparePartitionCheckpoint). A hyphen, not
 * a dot: a consumer name cannot hold a dot and the announcement subject takes it as one token.
 */
export function partitionName(projection: string, index: number, count: number): string {
  return count === 1 ? projection : `${projection}-p${index}of${count}`;
}

/** The projection a checkpoint row's name is of, whatever its partitioning. */
export function wholeNameOf(unit: string): string {
  return unit.replace(/-p[0-9]+of[0-9]+$/, '');
}

/** The names of every partition of `projection` as `count` splits it. */
export function partitionNames(projection: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => partitionName(projection, index, count));
}

/**
 * Partition `index` of `count` of a partitioned projection: the same projection, given only the
 * events of aggregates whose id falls in the partition, under its own name. Its consumer is
 * delivered its partition's messages only (partitionFilter); its checkpoint follows the stream's
 * end over the others' while idle (ProjectionRunner).
 */
export function partitionUnit(projection: AnyProjection, index: number, count: number): AnyProjection {
  if (count === 1) return projection;
  const mine = (events: readonly RecordedEvent[]) =>
    events.filter((event) => partitionOf(event.aggregateId, count) === index);
  const { bulk, afterCommit } = projection;
  return {
    ...projection,
    name: partitionName(projection.name, index, count),
    partition: { of: projection.name, index, count },
    apply: (db, events) => projection.apply(db, mine(events)),
    bulk:
      bulk &&
      (() => {
        const fold = bulk.call(projection);
        return { add: (events) => fold.add(mine(events)), tables: () => fold.tables() };
      }),
    afterCommit: afterCommit && ((events) => afterCommit.call(projection, mine(events))),
  };
}

/**
 * What runs: every partition of each partitioned projection, and the others whole. `instances`
 * makes the projections afresh for each partition, as a projection may keep state between its
 * apply and its afterCommit that partitions running side by side must not share.
 */
export function projectionUnits(
  instances: (partition: number) => readonly AnyProjection[],
  partitions: number,
): AnyProjection[] {
  const perPartition = Array.from({ length: partitions }, (_, index) => instances(index));
  return perPartition[0]!.flatMap((projection, at) =>
    projection.partitioned && partitions > 1
      ? perPartition.map((list, index) => partitionUnit(list[at]!, index, partitions))
      : [projection],
  );
}
