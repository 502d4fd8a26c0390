import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Kysely } from 'kysely';
import type { GatewayConfig } from '@shop/config';
import type { ReadModelDatabase } from '@shop/db';
import type { Logger } from '@shop/observability';
import { CONFIG, LOGGER, READ_DB } from '../infrastructure/tokens';
import { DepositCrediting } from './deposit-crediting';
import { openDepositClaims } from './open-deposit-claims';

/** Open claims driven per round; the rest wait for the next one. */
const BATCH = 100;

/**
 * Drives every claimed deposit to credited or failed: a claim still open one interval after it
 * was last touched (its process crashed, or its reaction ran out of deliveries) is funded again
 * under its one key. Every gateway runs it; repeats are harmless by the key and the decider.
 */
@Injectable()
export class DepositReconciler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> | null = null;

  constructor(
    @Inject(READ_DB) private readonly db: Kysely<ReadModelDatabase>,
    @Inject(CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly crediting: DepositCrediting,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.round ??= this.reconcile().finally(() => (this.round = null));
    }, this.config.RECONCILE_INTERVAL_MS);
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.round;
  }

  async reconcile(): Promise<void> {
    try {
      const stale = await openDepositClaims(this.db)
        .select('provider_order_id')
        .where('updated_at', '<', new Date(Date.now() - this.config.RECONCILE_INTERVAL_MS))
        .orderBy('updated_at')
        .limit(BATCH)
        .execute();
      for (const { provider_order_id: txDigest } of stale) {
        await this.crediting.settle(txDigest).catch((error: unknown) => {
          this.logger.warn({ err: error, txDigest }, 'deposit still not credited; retrying next round');
        });
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'could not list open deposits');
    }
  }
}
