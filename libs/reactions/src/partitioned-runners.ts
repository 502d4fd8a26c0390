import { Reaction } from './reaction';
import { ReactionHosts } from './reaction-hosts';
import { reactionPartitions } from './reaction-partition';
import { ReactionRunner, ReactionRunnerOptions } from './reaction-runner';

export interface PartitionedRunners {
  /** One per partition of each reaction. */
  runners: ReactionRunner[];
  /** The process's session for them when the reactions are split; closed after the runners stop. */
  hosts: ReactionHosts | undefined;
}

/**
 * A process's runners of `reactions` split `partitions` ways (STREAM_PARTITIONS). One partition
 * has a single holder anyway: no share to count, so no hosts session.
 */
export function partitionedRunners(
  reactions: readonly Reaction[],
  partitions: number,
  options: Omit<ReactionRunnerOptions, 'reaction' | 'partition' | 'hosts'> & { databaseUrl: string },
): PartitionedRunners {
  const hosts =
    reactions.length > 0 && partitions > 1
      ? new ReactionHosts(options.databaseUrl, options.store.stream, options.lockTiming)
      : undefined;
  const runners = reactions.flatMap((reaction) =>
    reactionPartitions(partitions).map(
      (partition) => new ReactionRunner({ ...options, reaction, partition, hosts }),
    ),
  );
  return { runners, hosts };
}
