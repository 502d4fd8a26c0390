import type { Redis } from 'ioredis';

export interface CacheRead<T> {
  value: T | undefined;
  /** The key's generation when it was read: store a freshly loaded value under this one. */
  generation: string;
}

export type CacheReadJson = Omit<CacheRead<unknown>, 'value'> & { json: string | undefined };

/**
 * A read-through cache that cannot keep a stale value: every entry is stored with the
 * generation of its key as seen *before* the database read, and a writer invalidates by
 * bumping the generation. A slow reader that loaded old rows writes an entry under an old
 * generation, which the next read ignores. Redis trouble only means a cache miss.
 */
export class GenerationCache {
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
    private readonly ttlSeconds: number,
  ) {}

  /**
   * `variant` keeps several values under one key's generation (the pages and filters of one
   * user's list): invalidating the key makes all of them stale at once.
   */
  async read<T>(key: string, variant?: string): Promise<CacheRead<T>> {
    const { json, generation } = await this.readJson(key, variant);
    if (json === undefined) return { value: undefined, generation };
    try {
      return { value: JSON.parse(json) as T, generation };
    } catch {
      return { value: undefined, generation: 'unavailable' };
    }
  }

  /** The value as it was stored, serialized: what an answer that is the value itself can send as it is. */
  async readJson(key: string, variant?: string): Promise<CacheReadJson> {
    try {
      const [entry, generation] = await this.redis.mget(this.dataKey(key, variant), this.generationKey(key));
      const current = generation ?? '0';
      const at = entry?.indexOf(' ') ?? -1;
      // An entry is "<generation> <json>": one of another generation (or format) is stale.
      const json = at > 0 && entry!.slice(0, at) === current ? entry!.slice(at + 1) : undefined;
      return { json, generation: current };
    } catch {
      return { json: undefined, generation: 'unavailable' };
    }
  }

  async write<T>(key: string, value: T, generation: string, variant?: string): Promise<void> {
    await this.writeJson(key, JSON.stringify(value), generation, variant);
  }

  async writeJson(key: string, json: string, generation: string, variant?: string): Promise<void> {
    if (generation === 'unavailable') return;
    await this.redis
      .set(this.dataKey(key, variant), `${generation} ${json}`, 'EX', this.ttlSeconds)
      .catch(() => undefined);
  }

  /** Makes every entry of these keys stale, including ones being written right now. */
  async invalidate(keys: Iterable<string>): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const key of new Set(keys)) {
      pipeline.incr(this.generationKey(key));
      // Outlives any data entry, so an expired generation cannot make an old entry current.
      pipeline.expire(this.generationKey(key), this.ttlSeconds * 100);
    }
    await pipeline.exec();
  }

  private dataKey(key: string, variant?: string): string {
    return variant === undefined
      ? `cache:${this.namespace}:${key}`
      : `cache:${this.namespace}:${key}:${variant}`;
  }

  private generationKey(key: string): string {
    return `cache-gen:${this.namespace}:${key}`;
  }
}
