import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { Redis } from 'ioredis';
import { LockLease, RedisLock } from './redis-lock';

const compress = promisify(gzip);
const decompress = promisify(gunzip);

export interface SingleFlightCacheOptions {
  /** Keys live under `cache:<namespace>:` and their compute locks under `lock:cache:<namespace>:`. */
  namespace: string;
  /**
   * How long an instance waits for another instance that is computing the same key before it
   * computes its own; the wait also ends as soon as the other one's lock is gone.
   */
  waitMs: number;
  /** Life of the compute lock, renewed while computing, so a crashed owner frees it soon. */
  lockTtlMs?: number;
  pollMs?: number;
  /** Redis could not be asked: the value is computed without the cache. */
  onUnavailable?: (error: unknown) => void;
}

/**
 * Read-through cache in Redis where each missing key is computed once at a time: concurrent
 * callers in this process share one promise, and other instances wait on a Redis lock for the
 * value the owner stores. Values are gzipped JSON (a scraped listing runs to megabytes).
 * Failures are never cached, and without Redis every call still gets a computed value.
 */
export class SingleFlightCache<T> {
  private readonly inFlight = new Map<string, Promise<T>>();
  private readonly lock: RedisLock;
  private readonly lockTtlMs: number;
  private readonly pollMs: number;
  private readonly onUnavailable: (error: unknown) => void;

  constructor(
    private readonly redis: Redis,
    private readonly options: SingleFlightCacheOptions,
  ) {
    this.lock = new RedisLock(redis);
    this.lockTtlMs = options.lockTtlMs ?? 30_000;
    this.pollMs = options.pollMs ?? 100;
    this.onUnavailable = options.onUnavailable ?? (() => undefined);
  }

  /** The cached value of `key`, or `compute()`'s, stored for `ttlMs` (0: not cached at all). */
  get(key: string, ttlMs: number, compute: () => Promise<T>): Promise<T> {
    const shared = this.inFlight.get(key);
    if (shared) return shared;
    const flight = this.load(key, ttlMs, compute).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, flight);
    return flight;
  }

  private async load(key: string, ttlMs: number, compute: () => Promise<T>): Promise<T> {
    if (ttlMs <= 0) return compute();
    const deadline = Date.now() + this.options.waitMs;
    for (;;) {
      let lease: LockLease | null;
      try {
        const cached = await this.read(key);
        if (cached !== undefined) return cached;
        lease = await this.lock.acquire(this.lockKey(key), this.lockTtlMs);
      } catch (error) {
        this.onUnavailable(error);
        return compute();
      }
      if (lease) return this.computeHolding(lease, key, ttlMs, compute);
      if (Date.now() >= deadline) return compute();
      await sleep(this.pollMs);
    }
  }

  private async computeHolding(
    lease: LockLease,
    key: string,
    ttlMs: number,
    compute: () => Promise<T>,
  ): Promise<T> {
    const renewal = setInterval(() => void lease.extend(this.lockTtlMs), Math.max(1, this.lockTtlMs / 3));
    try {
      // Another instance may have stored it between our read and our lock.
      const cached = await this.read(key).catch(() => undefined);
      if (cached !== undefined) return cached;
      const value = await compute();
      try {
        const payload = await compress(Buffer.from(JSON.stringify(value)));
        await this.redis.set(this.valueKey(key), payload, 'PX', ttlMs);
      } catch (error) {
        this.onUnavailable(error);
      }
      return value;
    } finally {
      clearInterval(renewal);
      await lease.release();
    }
  }

  /** Undefined on a miss; a value that no longer decodes counts as a miss. Redis errors propagate. */
  private async read(key: string): Promise<T | undefined> {
    const payload = await this.redis.getBuffer(this.valueKey(key));
    if (!payload) return undefined;
    try {
      return JSON.parse((await decompress(payload)).toString('utf8')) as T;
    } catch {
      return undefined;
    }
  }

  private valueKey(key: string): string {
    return `cache:${this.options.namespace}:${key}`;
  }

  private lockKey(key: string): string {
    return `lock:cache:${this.options.namespace}:${key}`;
  }
}
