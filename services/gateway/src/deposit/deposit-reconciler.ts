import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Kysely } from 'kysely';
import type { GatewayConfig } from '@shop/config';
import type { Logger } from '@shop/logging';
import { lockTimingFor, ReconcileLoop } from '@shop/reactions';
import type { ReadModelDatabase } from '@shop/read-models';
import { CONFIG, LOGGER, READ_DB } from '../infrastructure/tokens';
import { DepositCrediting } from './deposit-crediting';
import { openDepositClaims } from './open-deposit-claims';

/**
 * Drives every claimed deposit to credited or failed: a claim still open one interval after it
 * was last touched (its process crashed, or its reaction ran out of deliveries) is funded again
 * under its one key. Every gateway runs it and one at a time drives (an advisory lock per read
 * model), so two gateways never fund one claim at once, even when the holder's path to Postgres
 * freezes (its lease lapses first, and the funding call checks it); the key and the decider make a
 * repeat harmless all the same.
 */
@Injectable()
export class DepositReconciler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly loop: ReconcileLoop<string>;

  constructor(
    @Inject(READ_DB) db: Kysely<ReadModelDatabase>,
    @Inject(CONFIG) config: GatewayConfig,
    @Inject(LOGGER) logger: Logger,
    crediting: DepositCrediting,
  ) {
    this.loop = new ReconcileLoop({
      what: 'deposit claims',
      intervalMs: config.RECONCILE_INTERVAL_MS,
      logger,
      stale: async (touchedBefore, limit) =>
        (
          await openDepositClaims(db)
            .select('provider_order_id')
            .where('updated_at', '<', touchedBefore)
            .orderBy('updated_at')
            .limit(limit)
            .execute()
        ).map((row) => row.provider_order_id),
      drive: (txDigest, lock) => crediting.settle(txDigest, lock),
      singleHolder: {
        databaseUrl: config.DATABASE_URL,
        lockName: `reconcile:${config.READ_MODEL_SCHEMA}:deposit-claims`,
        timing: lockTimingFor(config.PROVIDER_TIMEOUT_MS),
      },
    });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }
}
