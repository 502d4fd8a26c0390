import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { GatewayConfig } from '@shop/config';
import { ProviderClient, RefreshedSession, refreshedSessionSchema } from '@shop/provider';
import { LockLease, RedisLock } from '@shop/redis';
import { open, seal } from '@shop/wallets';
import { CONFIG, PROVIDER, REDIS } from '../infrastructure/tokens';

/**
 * How long the rotated pair stays readable under the spent refresh token: long enough for the
 * requests a page fired with the old cookies to land, short enough that a stolen old token
 * buys little.
 */
const KEPT_PAIR_TTL_MS = 10_000;
/** Beyond the provider call's own deadline, so the lock outlives the one refresh it guards. */
const LOCK_MARGIN_MS = 5_000;
const POLL_MS = 25;

const digest = (label: string, refreshToken: string) =>
  createHash('sha256').update(`${label}\0${refreshToken}`).digest();

/**
 * Exchanges a refresh token at the provider once, whichever gateway and however many requests
 * present it. The provider rotates a refresh token on first use, so a page whose access token
 * expired would otherwise send several exchanges of which all but one fail and log the user out.
 *
 * One exchange per token at a time (a Redis lock, and one promise per token in this process);
 * its answer is kept for a few seconds, so the requests that waited answer with the same new
 * cookies. Redis holds only hashes of the token and the pair sealed under a key derived from the
 * token, so only a holder of the old refresh token can read the new one. Without Redis, each
 * request exchanges on its own, as before.
 */
@Injectable()
export class SessionRefresher {
  private readonly inFlight = new Map<string, Promise<RefreshedSession>>();
  private readonly lock: RedisLock;
  private readonly lockTtlMs: number;

  constructor(
    @Inject(PROVIDER) private readonly provider: ProviderClient | null,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(CONFIG) config: GatewayConfig,
  ) {
    this.lock = new RedisLock(redis);
    this.lockTtlMs = config.PROVIDER_TIMEOUT_MS + LOCK_MARGIN_MS;
  }

  get enabled(): boolean {
    return this.provider !== null;
  }

  /**
   * The session the provider issued for `refreshToken`; throws what the provider threw, or what
   * `admit` threw. `admit` runs only right before this call itself would send the token to the
   * provider: requests that share another's exchange, or the pair it kept, are not counted.
   */
  refresh(
    refreshToken: string,
    admit: () => Promise<void> = async () => undefined,
  ): Promise<RefreshedSession> {
    const id = digest('session-refresh-id', refreshToken).toString('hex');
    const shared = this.inFlight.get(id);
    if (shared) return shared;
    const flight = this.exchangeOnce(id, refreshToken, admit).finally(() => this.inFlight.delete(id));
    this.inFlight.set(id, flight);
    return flight;
  }

  private async exchangeOnce(
    id: string,
    refreshToken: string,
    admit: () => Promise<void>,
  ): Promise<RefreshedSession> {
    // The lock expires, so the wait ends: either the holder's pair appears or the lock is ours.
    for (;;) {
      let lease: LockLease | null;
      try {
        const kept = await this.kept(id, refreshToken);
        if (kept) return kept;
        lease = await this.lock.acquire(`lock:session-refresh:${id}`, this.lockTtlMs);
      } catch {
        await admit();
        return this.exchange(refreshToken);
      }
      if (lease) return this.exchangeHolding(lease, id, refreshToken, admit);
      await sleep(POLL_MS);
    }
  }

  private async exchangeHolding(
    lease: LockLease,
    id: string,
    refreshToken: string,
    admit: () => Promise<void>,
  ) {
    try {
      // The previous holder may have kept its pair between our read and our lock.
      const kept = await this.kept(id, refreshToken).catch(() => undefined);
      if (kept) return kept;
      await admit();
      const refreshed = await this.exchange(refreshToken);
      const sealed = seal(digest('session-refresh-key', refreshToken), JSON.stringify(refreshed), id);
      await this.redis
        .set(
          this.keptKey(id),
          Buffer.concat([sealed.iv, sealed.authTag, sealed.ciphertext]),
          'PX',
          KEPT_PAIR_TTL_MS,
        )
        .catch(() => undefined);
      return refreshed;
    } finally {
      await lease.release();
    }
  }

  private exchange(refreshToken: string): Promise<RefreshedSession> {
    if (!this.provider) throw new Error('no provider is configured to refresh sessions');
    return this.provider.refreshSession(refreshToken);
  }

  /** The pair an earlier exchange of this token kept; undefined when none (or it does not open). */
  private async kept(id: string, refreshToken: string): Promise<RefreshedSession | undefined> {
    const stored = await this.redis.getBuffer(this.keptKey(id));
    if (!stored) return undefined;
    try {
      const plaintext = open(
        digest('session-refresh-key', refreshToken),
        { iv: stored.subarray(0, 12), authTag: stored.subarray(12, 28), ciphertext: stored.subarray(28) },
        id,
      );
      return refreshedSessionSchema.parse(JSON.parse(plaintext));
    } catch {
      return undefined;
    }
  }

  private keptKey(id: string): string {
    return `session-refresh:${id}`;
  }
}
