import { DynamicModule } from '@nestjs/common';
import { Kysely } from 'kysely';
import type { SearchConfig } from '@shop/config';
import type { DatabaseHandle } from '@shop/db';
import type { EventStore } from '@shop/eventstore';
import {
  registerHostedProjections,
  registerOpenWork,
  ServiceMetrics,
  timeWriteToReadable,
} from '@shop/metrics';
import { ReadModelPositions } from '@shop/projections';
import { DeciderRunner } from '@shop/commands';
import { DATABASE, EVENT_STORE, registerAggregateCache, serviceObservability } from '@shop/service-kit';
import { SEARCH_DB } from './infrastructure/tokens';
import { pendingPaymentWork } from './payment/payment-reconciler';
import type { SearchDatabase } from './payment/read-model/search-database';
import { searchProjections } from './payment/read-model/search-projections';

/**
 * The search service's /metrics and /ready: the kit's, with write-to-readable times, its
 * in-process projections' checkpoints and lag, payments awaiting their confirmation, and its
 * chain RPC calls.
 */
export function searchObservability(config: SearchConfig, metrics: ServiceMetrics): DynamicModule {
  return serviceObservability({
    metrics,
    config,
    externalCalls: [{ client: 'chain', url: config.CHAIN_RPC_URL }],
    inject: [EVENT_STORE, DATABASE, ReadModelPositions, SEARCH_DB, DeciderRunner],
    instrument: (
      store: EventStore,
      database: DatabaseHandle,
      positions: ReadModelPositions,
      searchDb: Kysely<SearchDatabase>,
      runner: DeciderRunner,
    ) => {
      registerAggregateCache(metrics, runner);
      registerOpenWork(metrics, 'payment-delivery', () => pendingPaymentWork(searchDb));
      registerHostedProjections(
        metrics,
        store,
        database.db as Kysely<unknown>,
        config.SEARCH_SCHEMA,
        searchProjections.map((p) => p.name),
      );
      return [timeWriteToReadable(metrics, positions)];
    },
  });
}
