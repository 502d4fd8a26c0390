import 'reflect-metadata';
import { Controller, Get, Headers, Module, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import Redis from 'ioredis';

/**
 * The read floor's server (see read-floor.ts): Nest on Fastify, as the gateway runs, with one
 * route and none of our code. `READ_FLOOR_MODE=memory` answers a cart held in memory: the
 * framework alone. `limit` also counts the request in a fixed window in Redis (one script, one
 * round trip, as the gateway's limiter does for every gated request) and sends the limit's
 * headers. `redis` does what a gated cached read cannot skip: the count, then the cart's cached
 * JSON read from Redis and sent as it is.
 */
const mode = process.env.READ_FLOOR_MODE;
const prefix = process.env.READ_FLOOR_KEY_PREFIX ?? '';
// Read once: a lookup in process.env per request would be charged to the framework.
const cartInMemory = process.env.READ_FLOOR_BODY;
const windowMs = 60_000;
const redis =
  mode === 'limit' || mode === 'redis'
    ? new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
        keyPrefix: prefix,
        enableAutoPipelining: true,
      })
    : undefined;
redis?.defineCommand('count', {
  numberOfKeys: 1,
  lua: `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {c, redis.call('PTTL', KEYS[1])}`,
});
const counted = redis as (Redis & { count(key: string, ms: string): Promise<[number, number]> }) | undefined;

@Controller('api')
class CartController {
  @Get('cart')
  async cart(@Headers('x-user') user: string, @Res() reply: FastifyReply): Promise<void> {
    reply.header('content-type', 'application/json');
    if (!counted) {
      reply.send(cartInMemory);
      return;
    }
    const window = Math.floor(Date.now() / windowMs);
    const [count, ttl] = await counted.count(`rl:${user}:${window}`, String(windowMs));
    const body = mode === 'redis' ? await counted.get('cart') : cartInMemory;
    reply.header('ratelimit-remaining', String(Math.max(0, 1_000_000 - count)));
    reply.header('ratelimit-reset', String(Math.ceil(ttl / 1000)));
    reply.send(body);
  }
}

@Module({ controllers: [CartController] })
class ReadFloorModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestFastifyApplication>(ReadFloorModule, new FastifyAdapter(), {
    logger: false,
  });
  await app.listen(0, '127.0.0.1');
  process.stdout.write(`${new URL(await app.getUrl()).port}\n`);
}

void main();
