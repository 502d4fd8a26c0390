import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayEnv, loadConfig } from '@shop/config';
import type { ProviderClient, RefreshedSession } from '@shop/provider';
import { createRedis, redisReady } from '@shop/redis';
import { testEnvironment } from '@shop/testing';
import { SessionRefresher } from '../src/auth/session-refresher';

const env = testEnvironment('refresher');
/** One Redis connection per gateway instance, as separate processes would have. */
const connections = [0, 1, 2].map(() => createRedis(env.redisUrl, env.redisKeyPrefix));
const config = loadConfig(gatewayEnv, { ...process.env, ...env.env });

/** The provider's refresh as its API reference describes it: a refresh token is spent on first use. */
class RotatingProvider {
  private readonly live = new Set<string>();
  exchanges = 0;
  delayMs = 0;

  issue(): string {
    const secret = randomBytes(16).toString('hex');
    this.live.add(secret);
    return secret;
  }

  async refreshSession(secret: string): Promise<RefreshedSession> {
    this.exchanges++;
    await sleep(this.delayMs);
    if (!this.live.delete(secret)) throw new Error('provider answered 401: invalid refresh token');
    return {
      jwt: `jwt-${randomBytes(8).toString('hex')}`,
      refresh: { secret: this.issue(), expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
      user: { id: 'provider-user-1' },
    };
  }
}

beforeAll(async () => {
  for (const redis of connections) expect(await redisReady(redis)).toBe(true);
});
afterAll(async () => {
  const keys = await connections[0]!.keys(`${env.redisKeyPrefix}*`);
  if (keys.length > 0) await connections[0]!.del(...keys.map((k) => k.slice(env.redisKeyPrefix.length)));
  await Promise.all(connections.map((redis) => redis.quit()));
});

describe('SessionRefresher', () => {
  it('exchanges a refresh token once, and every parallel request on every gateway gets the rotated pair', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ gateway: fc.integer({ min: 0, max: 2 }), arrivesAfterMs: fc.nat(40) }), {
          minLength: 1,
          maxLength: 10,
        }),
        fc.nat(60),
        async (requests, providerDelayMs) => {
          const provider = new RotatingProvider();
          provider.delayMs = providerDelayMs;
          const gateways = connections.map(
            (redis) => new SessionRefresher(provider as unknown as ProviderClient, redis, config),
          );
          const token = provider.issue();
          const answers = await Promise.all(
            requests.map(async ({ gateway, arrivesAfterMs }) => {
              await sleep(arrivesAfterMs);
              return gateways[gateway]!.refresh(token);
            }),
          );
          expect(provider.exchanges).toBe(1);
          expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
          // The pair handed out is the live one: the next expiry refreshes with it.
          await expect(gateways[0]!.refresh(answers[0]!.refresh.secret)).resolves.toMatchObject({
            jwt: expect.any(String),
          });
        },
      ),
      { numRuns: 25 },
    );
  });

  it('keeps the rotated pair readable only with the spent token, never in clear', async () => {
    const provider = new RotatingProvider();
    const refresher = new SessionRefresher(provider as unknown as ProviderClient, connections[0]!, config);
    const token = provider.issue();
    const keptPairs = () => connections[0]!.keys(`${env.redisKeyPrefix}session-refresh:*`);
    const before = new Set(await keptPairs());
    const refreshed = await refresher.refresh(token);
    const keys = (await keptPairs()).filter((key) => !before.has(key));
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain(token);
    const stored = (await connections[0]!.getBuffer(keys[0]!.slice(env.redisKeyPrefix.length)))!;
    expect(stored.toString('latin1')).not.toContain(refreshed.refresh.secret);
    expect(stored.toString('latin1')).not.toContain(refreshed.jwt);
  });

  it('passes on a refusal, and a later request with the spent token is refused too', async () => {
    const provider = new RotatingProvider();
    const [first, second] = connections.map(
      (redis) => new SessionRefresher(provider as unknown as ProviderClient, redis, config),
    );
    const unknown = randomBytes(16).toString('hex');
    await expect(first!.refresh(unknown)).rejects.toThrow(/401/);
    await expect(second!.refresh(unknown)).rejects.toThrow(/401/);
  });
});
