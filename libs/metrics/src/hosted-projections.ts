import type { Kysely } from 'kysely';
import type { EventStore } from '@shop/eventstore';
import { consumerNameFor } from '@shop/projections';
import { registerConsumerStatus } from './consumer-status';
import { ProjectionStatusSampler, registerProjectionStatus } from './projection-status';
import { ServiceMetrics } from './service-metrics';

/**
 * The series of the projections a process runs into `schema`: their checkpoints, lag and parked
 * subjects, and their consumers' redeliveries.
 */
export function registerHostedProjections(
  metrics: ServiceMetrics,
  store: EventStore,
  db: Kysely<unknown>,
  schema: string,
  projections: readonly string[],
): void {
  registerProjectionStatus(metrics, new ProjectionStatusSampler(store, db, schema, projections));
  const consumers = new Set(projections.map((projection) => consumerNameFor(store, projection)));
  registerConsumerStatus(metrics, store, (name) => consumers.has(name));
}
