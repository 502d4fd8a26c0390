import { DynamicModule } from '@nestjs/common';
import { Kysely } from 'kysely';
import type { NatsConnection } from 'nats';
import type { GatewayConfig } from '@shop/config';
import type { DatabaseHandle } from '@shop/db';
import type { EventStore } from '@shop/eventstore';
import {
  countAppendedEvents,
  natsCheck,
  observeExternalCalls,
  ObservabilityModule,
  postgresCheck,
  redisCheck,
  registerConsumerStatus,
  registerOpenWork,
  ServiceMetrics,
  timeWriteToReadable,
} from '@shop/metrics';
import { CommandExecutor } from '@shop/projections';
import type { Redis } from '@shop/redis';
import type { ReadModelDatabase } from '@shop/db';
import { openDepositWork } from '../deposit/open-deposit-claims';
import { DATABASE, EVENT_STORE, NATS, READ_DB, REDIS } from './tokens';

/**
 * The gateway's /metrics and /ready: appended events, write-to-readable times, its reaction
 * consumers, open deposit claims, and the provider and chain calls it makes; ready when NATS, Postgres and Redis answer.
 */
export function gatewayObservability(config: GatewayConfig, metrics: ServiceMetrics): DynamicModule {
  return ObservabilityModule.register({
    metrics,
    inject: [NATS, EVENT_STORE, DATABASE, REDIS, CommandExecutor, READ_DB],
    useFactory: (
      nc: NatsConnection,
      store: EventStore,
      database: DatabaseHandle,
      redis: Redis,
      executor: CommandExecutor,
      readDb: Kysely<ReadModelDatabase>,
    ) => {
      registerOpenWork(metrics, 'deposit-crediting', () => openDepositWork(readDb));
      // The reactions this process hosts (several gateways share each consumer).
      registerConsumerStatus(metrics, store, (name) => name.startsWith('reaction_'));
      const external = [
        ...(config.PROVIDER_API_URL ? [{ client: 'provider', url: config.PROVIDER_API_URL }] : []),
        ...(config.PROVIDER_JWKS_URL ? [{ client: 'provider', url: config.PROVIDER_JWKS_URL }] : []),
        ...(config.CHAIN_RPC_URL ? [{ client: 'chain', url: config.CHAIN_RPC_URL }] : []),
      ];
      const stops = [
        countAppendedEvents(metrics, store),
        timeWriteToReadable(metrics, executor),
        observeExternalCalls(metrics, external),
      ];
      return {
        checks: [natsCheck(nc, store.jsm), postgresCheck(database.db as Kysely<unknown>), redisCheck(redis)],
        stop: () => stops.forEach((stop) => stop()),
      };
    },
  });
}
