import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, figures, SpawnedGateway, Stack, writeFigures } from './harness';

let stack: Stack;
let spawned: SpawnedGateway;

beforeAll(async () => {
  stack = await Stack.start('sessionrefresh');
  spawned = await stack.spawnGateway();
}, 120_000);
afterAll(async () => {
  writeFigures('session-refresh');
  await stack?.stop();
});

describe('parallel refreshes across gateway processes', () => {
  it('refreshes an expired session once for ten requests split over two gateway processes, every one 200 with the same cookies', async () => {
    const email = `refresh-${randomUUID().slice(0, 8)}@example.com`;
    const issued = await stack.provider.issueToken(email, { ttlSeconds: 5 });
    expect(
      (await new Client(stack.url).request('POST', '/api/auth/session', { jwt: issued.jwt })).status,
    ).toBe(200);
    // Outlives the token (the first request to a fresh gateway fetches the provider's keys first).
    await new Promise((r) => setTimeout(r, 5100));
    const exchangesBefore = stack.provider.requests('auth.refresh').length;

    const pages = Array.from({ length: 10 }, (_, i) => {
      const page = new Client(i % 2 === 0 ? stack.url : spawned.url);
      page.setCookie('provider-jwt', issued.jwt);
      page.setCookie('provider-refresh-token', issued.refresh.secret);
      return page;
    });
    const answers = await Promise.all(pages.map((page) => page.request('GET', '/api/auth/profile')));

    const exchanges = stack.provider.requests('auth.refresh').length - exchangesBefore;
    if (exchanges !== 1 || answers.some((a) => a.status !== 200)) figures.invariantsBroken++;
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(exchanges).toBe(1);
    expect(new Set(pages.map((page) => page.cookie('provider-refresh-token'))).size).toBe(1);
    expect(new Set(pages.map((page) => page.cookie('provider-jwt'))).size).toBe(1);
    expect(pages[0]!.cookie('provider-refresh-token')).not.toBe(issued.refresh.secret);
  });
});
