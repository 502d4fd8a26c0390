import { DynamicModule } from '@nestjs/common';
import { Kysely } from 'kysely';
import type { NatsConnection } from 'nats';
import type { SearchConfig } from '@shop/config';
import type { DatabaseHandle } from '@shop/db';
import type { EventStore } from '@shop/eventstore';
import {
  countAppendedEvents,
  natsCheck,
  observeExternalCalls,
  ObservabilityModule,
  postgresCheck,
  ProjectionStatusSampler,
  redisCheck,
  registerConsumerStatus,
  registerOpenWork,
  registerProjectionStatus,
  ServiceMetrics,
  timeWriteToReadable,
} from '@shop/metrics';
import { CommandExecutor } from '@shop/commands';
import { consumerNameFor } from '@shop/projections';
import type { Redis } from '@shop/redis';
import { DATABASE, EVENT_STORE, NATS, REDIS, SEARCH_DB } from './infrastructure/tokens';
import { pendingPaymentWork } from './payment/payment-reconciler';
import type { SearchDatabase } from './payment/read-model/search-database';
import { searchProjections } from './payment/read-model/search-projections';

/**
 * The search service's /metrics and /ready: its appended payment events, write-to-readable
 * times, its in-process projections' checkpoints and lag, payments awaiting their confirmation,
 * and its chain RPC calls.
 */
export function searchObservability(config: SearchConfig, metrics: ServiceMetrics): DynamicModule {
  return ObservabilityModule.register({
    metrics,
    metricsServer: { host: config.HOST, port: config.METRICS_PORT },
    inject: [NATS, EVENT_STORE, DATABASE, REDIS, CommandExecutor, SEARCH_DB],
    useFactory: (
      nc: NatsConnection,
      store: EventStore,
      database: DatabaseHandle,
      redis: Redis,
      executor: CommandExecutor,
      searchDb: Kysely<SearchDatabase>,
    ) => {
      const db = database.db as Kysely<unknown>;
      registerOpenWork(metrics, 'payment-delivery', () => pendingPaymentWork(searchDb));
      const names = searchProjections.map((p) => p.name);
      registerProjectionStatus(metrics, new ProjectionStatusSampler(store, db, config.SEARCH_SCHEMA, names));
      const consumers = new Set(names.map(consumerNameFor));
      registerConsumerStatus(metrics, store, (name) => consumers.has(name));
      const stops = [
        countAppendedEvents(metrics, store),
        timeWriteToReadable(metrics, executor),
        observeExternalCalls(metrics, [{ client: 'chain', url: config.CHAIN_RPC_URL }]),
      ];
      return {
        checks: [natsCheck(nc, store.jsm), postgresCheck(db), redisCheck(redis)],
        stop: () => stops.forEach((stop) => stop()),
      };
    },
  });
}
