import { DynamicModule } from '@nestjs/common';
import { Kysely } from 'kysely';
import type { GatewayConfig } from '@shop/config';
import type { DatabaseHandle, ReactionsDatabase } from '@shop/db';
import type { EventStore } from '@shop/eventstore';
import { registerConsumerStatus, registerOpenWork, ServiceMetrics, timeWriteToReadable } from '@shop/metrics';
import { ReadModelPositions } from '@shop/projections';
import { PostgresReactionParking } from '@shop/reactions';
import type { ReadModelDatabase } from '@shop/read-models';
import { DeciderRunner } from '@shop/commands';
import { registerAggregateCache, serviceObservability } from '@shop/service-kit';
import { openDepositWork } from '../deposit/open-deposit-claims';
import { PendingOnChainCheckouts } from '../onchain/pending-onchain-checkouts';
import { DATABASE, EVENT_STORE, READ_DB } from './tokens';

/**
 * The gateway's /metrics and /ready: the kit's, with write-to-readable times, its reaction
 * consumers, open deposit claims, on-chain checkouts and its aggregate cache, and the provider and chain calls it makes.
 */
export function gatewayObservability(config: GatewayConfig, metrics: ServiceMetrics): DynamicModule {
  return serviceObservability({
    metrics,
    config,
    externalCalls: [
      ...(config.PROVIDER_API_URL ? [{ client: 'provider', url: config.PROVIDER_API_URL }] : []),
      ...(config.PROVIDER_JWKS_URL ? [{ client: 'provider', url: config.PROVIDER_JWKS_URL }] : []),
      ...(config.CHAIN_RPC_URL ? [{ client: 'chain', url: config.CHAIN_RPC_URL }] : []),
    ],
    inject: [EVENT_STORE, DATABASE, ReadModelPositions, PendingOnChainCheckouts, READ_DB, DeciderRunner],
    instrument: (
      store: EventStore,
      database: DatabaseHandle,
      positions: ReadModelPositions,
      pendingCheckouts: PendingOnChainCheckouts,
      readDb: Kysely<ReadModelDatabase>,
      runner: DeciderRunner,
    ) => {
      registerAggregateCache(metrics, runner);
      metrics.gauge(
        'onchain_checkouts_pending',
        "Paid orders whose contract checkout this process has begun and not recorded yet (waiting for the item's object or the chain)",
        [],
        (gauge) => gauge.set(pendingCheckouts.size),
      );
      registerOpenWork(metrics, 'deposit-crediting', () => openDepositWork(readDb));
      // The reactions this process hosts (several gateways share each consumer).
      registerConsumerStatus(metrics, store, (name) => name.startsWith(store.consumerName('reaction_')));
      const parking = new PostgresReactionParking(
        database.db.withSchema(config.REACTIONS_SCHEMA) as unknown as Kysely<ReactionsDatabase>,
      );
      metrics.gauge(
        'reaction_parked_events',
        'Events a process manager parked (given up on, or could not interpret), waiting for an operator: npm run projections -- parked',
        ['reaction'],
        async (gauge) => {
          const counts = await parking.counts();
          gauge.reset();
          for (const [reaction, count] of counts) gauge.set({ reaction }, count);
        },
      );
      return [timeWriteToReadable(metrics, positions)];
    },
  });
}
