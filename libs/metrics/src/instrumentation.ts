import type { EventStore } from '@shop/eventstore';
import type { BatchOutcome, BatchPath, ReadModelPositions } from '@shop/projections';
import { ServiceMetrics } from './service-metrics';

/**
 * events_appended_total{type} and event_append_seconds{aggregate} from the store's append hook:
 * a command slow while its write-to-readable is not waited on the stream's acknowledgement, or
 * before it. Returns the way to stop.
 */
export function countAppendedEvents(metrics: ServiceMetrics, store: EventStore): () => void {
  return store.onAppended((events, { ackSeconds }) => {
    for (const event of events) metrics.eventsAppended.inc({ type: event.type });
    if (events[0]) metrics.appendAck.observe({ aggregate: events[0].aggregate }, ackSeconds);
  });
}

/** write_to_readable_seconds{aggregate} and read_your_writes_timeouts_total from the commands' waits. */
export function timeWriteToReadable(metrics: ServiceMetrics, positions: ReadModelPositions): () => void {
  return positions.onCommitWait(({ aggregate, seconds, readable }) => {
    if (readable) metrics.writeToReadable.observe({ aggregate }, seconds);
    else metrics.readYourWritesTimeouts.inc({ aggregate });
  });
}

/** A ProjectionRunner `onBatch` that counts batches by path, applied events, batch sizes and parkings. */
export function projectionBatchMetrics(
  metrics: ServiceMetrics,
): (outcome: BatchOutcome, projection: string, batchSize: number, path: BatchPath) => void {
  return (outcome, projection, batchSize, path) => {
    metrics.projectionBatches.inc({ projection, path });
    metrics.projectionEventsApplied.inc({ projection }, outcome.applied.length);
    metrics.projectionBatchSize.observe({ projection }, batchSize);
    if (outcome.parked.length > 0) metrics.projectionParkings.inc({ projection }, outcome.parked.length);
  };
}
