import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { Aggregates } from '@shop/commands';
import type { SearchConfig } from '@shop/config';
import type { OpenWork } from '@shop/metrics';
import type { Logger } from '@shop/logging';
import { ReconcileLoop } from '@shop/reactions';
import { FairRedisLock } from '@shop/redis';
import { CONFIG, LOGGER } from '@shop/service-kit';
import { SEARCH_DB } from '../infrastructure/tokens';
import { PaymentDelivery } from './payment-delivery';
import { SearchDatabase } from './read-model/search-database';
import { LOCK_TTL_MS, VERIFICATION_LOCKS, verificationLock } from './verify-payment.command';

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
  private readonly loop: ReconcileLoop<string>;

  constructor(
    @Inject(SEARCH_DB) db: Kysely<SearchDatabase>,
    @Inject(CONFIG) config: SearchConfig,
    @Inject(LOGGER) logger: Logger,
    @Inject(VERIFICATION_LOCKS) private readonly locks: FairRedisLock,
    private readonly delivery: PaymentDelivery,
    private readonly aggregates: Aggregates,
  ) {
    this.loop = new ReconcileLoop({
      what: 'pending payments',
      intervalMs: config.RECONCILE_INTERVAL_MS,
      logger,
      stale: async (touchedBefore, limit) =>
        (
          await pendingPayments(db)
            .select('tx_hash')
            .where('updated_at', '<', touchedBefore)
            .orderBy('updated_at')
            .limit(limit)
            .execute()
        ).map((row) => row.tx_hash),
      drive: (txHash) => this.deliver(txHash),
    });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  private async deliver(txHash: string): Promise<void> {
    const lease = await this.locks.acquire(verificationLock(txHash), LOCK_TTL_MS);
    if (!lease) return;
    try {
      const { state } = await this.aggregates.payment.state(txHash);
      await this.delivery.deliver(txHash, state);
    } finally {
      await lease.release();
    }
  }
}
