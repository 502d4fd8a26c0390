import type { Redis } from 'ioredis';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the current window ends. */
  resetMs: number;
  /** False when Redis could not be asked and the request was let through. */
  enforced: boolean;
}

// Counts the request and reads the window's remaining life in one round trip. Sent as a
// command of its own (EVALSHA: Redis neither receives nor hashes the script on every request).
const countCommand = 'rateLimitCount';
const countScript = `
local current = redis.call('INCR', KEYS[1])
if current == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {current, redis.call('PTTL', KEYS[1])}
`;

/**
 * A fixed-window counter per key in Redis, shared by every instance of a service. When
 * Redis is unreachable it fails open: serving without a limit beats refusing everyone.
 */
export class RateLimiter {
  private readonly redis: Redis & { [countCommand](key: string, windowMs: string): Promise<unknown> };

  constructor(
    redis: Redis,
    private readonly name: string,
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly onUnavailable: (error: unknown) => void = () => undefined,
  ) {
    if (!(countCommand in redis)) redis.defineCommand(countCommand, { numberOfKeys: 1, lua: countScript });
    this.redis = redis as RateLimiter['redis'];
  }

  async hit(key: string, now = Date.now()): Promise<RateLimitDecision> {
    const window = Math.floor(now / this.windowMs);
    const redisKey = `rl:${this.name}:${key}:${window}`;
    try {
      const [count, ttl] = (await this.redis[countCommand](redisKey, String(this.windowMs))) as [
        number,
        number,
      ];
      const resetMs = ttl > 0 ? ttl : (window + 1) * this.windowMs - now;
      return {
        allowed: count <= this.limit,
        limit: this.limit,
        remaining: Math.max(0, this.limit - count),
        resetMs,
        enforced: true,
      };
    } catch (error) {
      this.onUnavailable(error);
      return {
        allowed: true,
        limit: this.limit,
        remaining: this.limit,
        resetMs: this.windowMs,
        enforced: false,
      };
    }
  }
}

/** The standard headers (IETF RateLimit draft plus Retry-After on refusal). */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const reset = String(Math.ceil(decision.resetMs / 1000));
  const headers: Record<string, string> = {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': reset,
  };
  if (!decision.allowed) headers['retry-after'] = reset;
  return headers;
}
