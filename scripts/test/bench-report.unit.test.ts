import { describe, expect, it } from 'vitest';
import { resultRows } from '../../bench/report';

const valueOf = (rows: ReturnType<typeof resultRows>, measure: string) =>
  rows.find((r) => r.measure === measure)?.value;

describe("the bench's report of the floors", () => {
  it("prints the raw floor's CPU per operation of its client and of each server, and their sum", () => {
    const rows = resultRows({
      rawFloor: {
        count: 4000,
        perSecond: 200,
        p50Ms: 5,
        p99Ms: 9,
        clientCpuSeconds: 0.8,
        serverCpuSeconds: { nats: 0.2, postgres: 0.6, redis: 0 },
      },
    });
    expect(valueOf(rows, 'raw floor: CPU ms per publish+ack & upsert, by process')).toBe(
      'client 0.200 + nats 0.050 + postgres 0.150 + redis 0.000 = 0.400',
    );
  });

  it('prints each read floor as its server and Redis per request, and their sum', () => {
    const figure = (server: number, redis: number) => ({
      requests: 1000,
      perSecond: 100,
      serverUsPerRequest: server,
      redisUsPerRequest: redis,
    });
    const rows = resultRows({
      readFloor: {
        framework: figure(30, 0),
        rateLimited: figure(45.6, 9),
        gatedRead: figure(58, 12),
        bodyBytes: 900,
      },
    });
    expect(rows.filter((r) => r.measure.startsWith('read floor:')).map((r) => r.value)).toEqual([
      'server 0.030 + redis 0.000 = 0.030',
      'server 0.046 + redis 0.009 = 0.055',
      'server 0.058 + redis 0.012 = 0.070',
    ]);
  });
});
