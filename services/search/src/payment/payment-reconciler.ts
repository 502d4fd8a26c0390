import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Kysely } from 'kysely';
import type { SearchConfig } from '@shop/config';
import { paymentDecider } from '@shop/domain';
import { DeciderRunner } from '@shop/eventstore';
import type { OpenWork } from '@shop/metrics';
import type { Logger } from '@shop/observability';
import { RedisLock } from '@shop/redis';
import { CONFIG, DECIDER_RUNNER, LOGGER, SEARCH_DB } from '../infrastructure/tokens';
import { PaymentDelivery } from './payment-delivery';
import { SearchDatabase } from './read-model/search-database';
import { LOCK_TTL_MS, VERIFICATION_LOCKS, verificationLock } from './verify-payment.command';

/** Payments driven per round; the rest wait for the next one. */
const BATCH = 100;

/** Verified payments whose confirmation the backend has not acknowledged (nor refused) yet. */
function pendingPayments(db: Kysely<SearchDatabase>) {
  return db.selectFrom('payment_transactions').where('status', '=', 'PENDING');
}

export async function pendingPaymentWork(db: Kysely<SearchDatabase>): Promise<OpenWork> {
  const row = await pendingPayments(db)
    .select((eb) => [eb.fn.countAll<string>().as('count'), eb.fn.min('updated_at').as('oldest')])
    .executeTakeFirst();
  return { count: Number(row?.count ?? 0), oldest: row?.oldest ? new Date(row.oldest) : null };
}

/**
 * Drives every verified payment to SUCCESS or FAILED without waiting for someone to verify it
 * again: a payment still PENDING one interval after it was last touched has its confirmation
 * delivered again, under the digest's verification lock (a verification holding it goes first).
 */
@Injectable()
export class PaymentReconciler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> | null = null;

  constructor(
    @Inject(SEARCH_DB) private readonly db: Kysely<SearchDatabase>,
    @Inject(CONFIG) private readonly config: SearchConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(DECIDER_RUNNER) private readonly runner: DeciderRunner,
    @Inject(VERIFICATION_LOCKS) private readonly locks: RedisLock,
    private readonly delivery: PaymentDelivery,
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
      const stale = await pendingPayments(this.db)
        .select('tx_hash')
        .where('updated_at', '<', new Date(Date.now() - this.config.RECONCILE_INTERVAL_MS))
        .orderBy('updated_at')
        .limit(BATCH)
        .execute();
      for (const { tx_hash: txHash } of stale) {
        await this.deliver(txHash).catch((error: unknown) => {
          this.logger.warn(
            { err: error, txHash },
            'payment confirmation still undelivered; retrying next round',
          );
        });
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'could not list pending payments');
    }
  }

  private async deliver(txHash: string): Promise<void> {
    const lease = await this.locks.acquire(verificationLock(txHash), LOCK_TTL_MS);
    if (!lease) return;
    try {
      const { state } = await this.runner.state(paymentDecider, 'payment', txHash);
      await this.delivery.deliver(txHash, state);
    } finally {
      await lease.release();
    }
  }
}
