import { DynamicModule, InjectionToken } from '@nestjs/common';
import type { Kysely } from 'kysely';
import type { NatsConnection } from 'nats';
import type { DatabaseHandle } from '@shop/db';
import type { EventStore } from '@shop/eventstore';
import {
  countAppendedEvents,
  ExternalTarget,
  natsCheck,
  observeExternalCalls,
  ObservabilityModule,
  postgresCheck,
  redisCheck,
  ServiceMetrics,
} from '@shop/metrics';
import type { Redis } from '@shop/redis';
import { DATABASE, EVENT_STORE, NATS, REDIS } from '../tokens';

export interface ServiceObservabilityOptions {
  /** Created before the app, so the HTTP hook installed on the adapter records into it too. */
  metrics: ServiceMetrics;
  /** The metrics server listens on METRICS_PORT at HOST, never on the public port. */
  config: { HOST: string; METRICS_PORT: number };
  /** The upstreams whose calls are timed, by client. */
  externalCalls: ExternalTarget[];
  /** The service's own providers that `instrument` reads. */
  inject?: InjectionToken[];
  /** Registers the service's own series; returns how to detach each hook it attached. */
  // Nest factories take whatever their `inject` list resolves to.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  instrument?: (...dependencies: any[]) => Array<() => void>;
}

/**
 * A service's /ready and /metrics: ready when NATS (with JetStream), Postgres and Redis answer;
 * appended events and upstream calls counted, and whatever the service itself instruments.
 */
export function serviceObservability(options: ServiceObservabilityOptions): DynamicModule {
  const { metrics } = options;
  return ObservabilityModule.register({
    metrics,
    metricsServer: { host: options.config.HOST, port: options.config.METRICS_PORT },
    inject: [NATS, EVENT_STORE, DATABASE, REDIS, ...(options.inject ?? [])],
    useFactory: (
      nc: NatsConnection,
      store: EventStore,
      database: DatabaseHandle,
      redis: Redis,
      ...dependencies: unknown[]
    ) => {
      const stops = [
        ...(options.instrument?.(...dependencies) ?? []),
        countAppendedEvents(metrics, store),
        observeExternalCalls(metrics, options.externalCalls),
      ];
      return {
        checks: [natsCheck(nc, store.jsm), postgresCheck(database.db as Kysely<unknown>), redisCheck(redis)],
        stop: () => stops.forEach((stop) => stop()),
      };
    },
  });
}
