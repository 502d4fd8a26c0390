import type { Provider } from '@nestjs/common';
import {
  AggregateCacheBounds,
  Aggregates,
  CommandExecutor,
  DeciderRunner,
  SnapshotRefusedError,
} from '@shop/commands';
import type { EventStore } from '@shop/eventstore';
import type { Logger } from '@shop/logging';
import { PositionTracker, ProjectionReader, ReadModelPositions } from '@shop/projections';
import { EVENT_STORE, LOGGER, POSITION_TRACKER } from '../tokens';

/**
 * The write side on the process's event store, given read-your-writes as the positions of the
 * projections that read each aggregate (`readers`, in `partitions` when partitioned): a command
 * answers once its write is readable.
 * `aggregateCache` bounds the folded aggregates the runner keeps between commands; a snapshot of
 * an aggregate is written every `snapshotEvery` commits of it (0: none), authenticated under
 * `snapshotKey` (libs/config's snapshotMacKey), this service's own.
 */
export function writeSideProviders(
  readers: readonly ProjectionReader[],
  readYourWritesTimeoutMs: number,
  aggregateCache: AggregateCacheBounds,
  snapshotEvery: number,
  snapshotKey: Buffer,
  partitions: number,
): Provider[] {
  return [
    {
      provide: ReadModelPositions,
      inject: [POSITION_TRACKER],
      useFactory: (tracker: PositionTracker) =>
        new ReadModelPositions(tracker, readers, readYourWritesTimeoutMs, partitions),
    },
    {
      provide: DeciderRunner,
      inject: [EVENT_STORE, LOGGER],
      useFactory: async (store: EventStore, logger: Logger) => {
        // A writer binds to the snapshot bucket only as the operator made it (no republish ...).
        if (snapshotEvery > 0) await store.snapshots.verify();
        return new DeciderRunner(store, {
          cache: aggregateCache,
          snapshots: {
            store: store.snapshots,
            every: snapshotEvery,
            key: snapshotKey,
            onError: (error, subject) =>
              error instanceof SnapshotRefusedError
                ? logger.error(
                    { err: error, subject },
                    'aggregate snapshot refused by its MAC: the stream is folded instead',
                  )
                : logger.warn(
                    { err: error, subject },
                    'aggregate snapshot skipped: the stream is folded instead',
                  ),
          },
        });
      },
    },
    {
      provide: CommandExecutor,
      inject: [DeciderRunner, ReadModelPositions],
      useFactory: (runner: DeciderRunner, positions: ReadModelPositions) =>
        new CommandExecutor(runner, positions),
    },
    {
      provide: Aggregates,
      inject: [CommandExecutor],
      useFactory: (executor: CommandExecutor) => new Aggregates(executor),
    },
  ];
}
