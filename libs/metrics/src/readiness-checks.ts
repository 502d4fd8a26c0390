import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { JetStreamManager, NatsConnection } from 'nats';
import type { Redis } from 'ioredis';
import { ReadinessCheck } from './readiness';

/** NATS answers a round trip and JetStream answers its API (a server without JetStream is not enough). */
export function natsCheck(nc: NatsConnection, jsm: JetStreamManager): ReadinessCheck {
  return {
    name: 'nats',
    async check() {
      if (nc.isClosed()) throw new Error('connection closed');
      await nc.flush();
      await jsm.getAccountInfo();
    },
  };
}

export function postgresCheck(db: Kysely<unknown>): ReadinessCheck {
  return {
    name: 'postgres',
    async check() {
      await sql`SELECT 1`.execute(db);
    },
  };
}

/** Redis holds only caches and counters, yet without it rate limits are off: not ready. */
export function redisCheck(redis: Redis): ReadinessCheck {
  return {
    name: 'redis',
    async check() {
      if (redis.status !== 'ready') throw new Error(`not connected (${redis.status})`);
      await redis.ping();
    },
  };
}
