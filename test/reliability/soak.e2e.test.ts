import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleValue } from '@shop/metrics';
import { ServiceProcess } from '@shop/testing';
import {
  checkpoints,
  Client,
  figures,
  product,
  Shopper,
  SpawnedGateway,
  Stack,
  TestResponse,
  webhookSecret,
  writeFigures,
} from './harness';

/**
 * A steady mixed load (chat excluded) on a gateway and a projector running as processes:
 * reads, cart adds and removals, sessions, onboarding updates, checkouts approved through the
 * provider's webhooks. No request may fail, the gateway's memory (RSS, sampled every second)
 * may not keep growing, and the projection lag returns to zero once the load stops.
 * RELIABILITY_SOAK_SECONDS (default 20, CI) and RELIABILITY_SOAK_RPS (default 40) set the run.
 */
const seconds = Number(process.env.RELIABILITY_SOAK_SECONDS ?? 20);
const targetRps = Number(process.env.RELIABILITY_SOAK_RPS ?? 40);
const workers = 8;

let stack: Stack;
let gateway: SpawnedGateway;
let projector: ServiceProcess;
const result: Record<string, unknown> = { seconds, targetRps };

beforeAll(async () => {
  stack = await Stack.start('soak', { gateway: false, projector: false });
  projector = stack.spawnProjector();
  // E.g. --max-old-space-size=96 to turn slow growth into a crash within a long run.
  const nodeOptions = process.env.RELIABILITY_SOAK_GATEWAY_NODE_OPTIONS;
  gateway = await stack.spawnGateway(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {});
  stack.provider.setWebhookTarget(`${gateway.url}/api/webhooks/provider`, webhookSecret);
}, 120_000);
afterAll(async () => {
  writeFigures('soak', result);
  await stack?.stop();
});

function rssMegabytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** Least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

describe('soak', () => {
  it(
    `holds a steady mixed load for ${seconds} s: no error, no growing memory, lag back to zero`,
    async () => {
      const shoppers: Shopper[] = [];
      for (let i = 0; i < workers; i++)
        shoppers.push(await stack.shopper({ url: gateway.url, funds: '100000' }));
      const store = await stack.store();
      const errors: string[] = [];
      const latencies: number[] = [];
      let requests = 0;
      const call = async (
        client: Client,
        method: string,
        path: string,
        body?: unknown,
      ): Promise<TestResponse> => {
        const started = performance.now();
        const res = await client.request(method, path, body);
        latencies.push(performance.now() - started);
        requests++;
        if (res.status >= 300) errors.push(`${method} ${path} -> ${res.status} ${res.text.slice(0, 200)}`);
        return res;
      };

      const rss: [number, number][] = [];
      const heap: [number, number][] = [];
      const lag: number[] = [];
      const pid = gateway.process.child.pid!;
      const started = Date.now();
      let running = true;
      const sampler = (async () => {
        while (running) {
          const at = (Date.now() - started) / 1000;
          rss.push([at, rssMegabytes(pid)]);
          const metrics = await fetch(`${gateway.metricsUrl}/metrics`).then(
            (r) => r.text(),
            () => '',
          );
          const used = sampleValue(parsePrometheusText(metrics), 'nodejs_heap_size_used_bytes');
          if (used !== undefined) heap.push([at, used / 2 ** 20]);
          const positions = Object.values(await checkpoints(stack.database, stack.env.schema));
          lag.push((await store.lastStreamSequence()) - Math.min(...positions));
          await sleep(1000);
        }
      })();

      const intervalMs = (workers / targetRps) * 1000;
      await Promise.all(
        shoppers.map(async (shopper, w) => {
          const client = shopper.client;
          const items: string[] = [];
          const sessions: string[] = [];
          for (let i = 0; Date.now() - started < seconds * 1000; i++) {
            const tick = Date.now();
            const roll = (i * 37 + w * 11) % 100;
            if (roll < 45) {
              const reads = [
                '/api/auth/profile',
                '/api/cart',
                '/api/sessions',
                '/api/orders',
                '/api/onboarding/status',
              ];
              await call(client, 'GET', reads[i % reads.length]!);
            } else if (roll < 65) {
              if (items.length >= 6) await call(client, 'DELETE', `/api/cart/${items.shift()}`);
              else {
                const res = await call(
                  client,
                  'POST',
                  '/api/cart',
                  product(`soak-${w}-${i}`, 100 + (i % 50)),
                );
                if (res.status === 201) items.push(res.json.id as string);
              }
            } else if (roll < 80) {
              if (sessions.length > 0 && i % 2 === 0) {
                await call(client, 'PATCH', `/api/sessions/${sessions[i % sessions.length]}`, {
                  title: `Renamed ${i}`,
                });
              } else {
                const res = await call(client, 'POST', '/api/sessions', { title: `Soak ${i}` });
                if (res.status === 201) sessions.push(res.json.id as string);
              }
            } else if (roll < 88) {
              await call(client, 'POST', '/api/onboarding/step-1', { displayName: `Soaker ${i}` });
            } else if (items.length > 0) {
              const item = items.shift()!;
              const order = await call(client, 'POST', '/api/checkout', { cartItemId: item });
              if (order.status === 201) {
                stack.provider.approve(order.json.providerOrderId as string);
                await call(client, 'GET', `/api/orders/${order.json.orderId}`);
              }
            } else {
              await call(client, 'GET', '/api/orders?limit=5');
            }
            const spent = Date.now() - tick;
            if (spent < intervalMs) await sleep(intervalMs - spent);
          }
        }),
      );
      const loadEnded = Date.now();
      await stack.provider.waitForDeliveries();

      // Lag returns to zero: every projection reaches the stream's end.
      const lagNow = async () => {
        const last = await store.lastStreamSequence();
        const positions = Object.values(await checkpoints(stack.database, stack.env.schema));
        return Math.max(0, last - Math.min(...positions));
      };
      try {
        await expect
          .poll(lagNow, { timeout: 20_000, interval: 100, message: 'projection lag after the load' })
          .toBe(0);
      } finally {
        running = false;
      }
      const settledAfterMs = Date.now() - loadEnded;
      await sampler;

      latencies.sort((a, b) => a - b);
      const afterWarmup = rss.filter(([t]) => t >= Math.min(5, seconds / 4));
      const firstMb = afterWarmup[0]?.[1] ?? 0;
      const lastMb = afterWarmup.at(-1)?.[1] ?? 0;
      const growthMbPerMin = slope(afterWarmup) * 60;
      // The heap after collections: the lowest reading of each 30 s window, and its trend.
      const floors: [number, number][] = [];
      for (const [t, mb] of heap.filter(([t]) => t >= Math.min(5, seconds / 4))) {
        const window = Math.floor(t / 30);
        const floor = floors.find(([w]) => w === window);
        if (!floor) floors.push([window, mb]);
        else floor[1] = Math.min(floor[1], mb);
      }
      const heapFloorGrowthMbPerMin =
        floors.length > 2 ? slope(floors.map(([w, mb]) => [w * 30, mb])) * 60 : 0;
      // How often read-your-writes needed the consistency token under this load, and how often
      // even the token's (longer) wait gave up.
      const counters = parsePrometheusText(await (await fetch(`${gateway.metricsUrl}/metrics`)).text());
      Object.assign(result, {
        commandReadableWaitTimeouts: sampleValue(counters, 'read_your_writes_timeouts_total'),
        consistentReadTimeouts: sampleValue(counters, 'consistent_read_timeouts_total'),
      });
      Object.assign(result, {
        requests,
        achievedRps: Math.round((requests / ((loadEnded - started) / 1000)) * 10) / 10,
        p50Ms: Math.round(latencies[Math.floor(latencies.length * 0.5)] ?? 0),
        p99Ms: Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? 0),
        errors: errors.length,
        rssFirstMb: Math.round(firstMb),
        rssLastMb: Math.round(lastMb),
        rssMaxMb: Math.round(Math.max(...rss.map(([, m]) => m))),
        rssGrowthMbPerMin: Math.round(growthMbPerMin * 10) / 10,
        heapFloorGrowthMbPerMin: Math.round(heapFloorGrowthMbPerMin * 10) / 10,
        rssEvery10s: rss.filter((_, i) => i % 10 === 0).map(([, m]) => Math.round(m)),
        heapUsedEvery10s: heap.filter((_, i) => i % 10 === 0).map(([, m]) => Math.round(m)),
        maxLag: Math.max(...lag),
        lagZeroAfterMs: settledAfterMs,
      });
      console.info(`soak: ${JSON.stringify(result)}`);

      figures.invariantsBroken += errors.length;
      expect(errors).toEqual([]);
      // Every worker sent at least its first request; the rate achieved is a figure, not a test.
      expect(requests).toBeGreaterThanOrEqual(workers);
      // Memory: a short run only guards against a gross leak. A long one bounds the trend of the
      // heap after collections; it is not zero while the gateway's aggregate cache fills (up to
      // AGGREGATE_CACHE_MAX_BYTES: new sessions, orders and webhook deliveries add to it). An hour
      // at length, with RSS and heap floor per minute for every service: npm run soak.
      expect(lastMb).toBeLessThan(firstMb * 1.5 + 64);
      if (seconds >= 120) expect(heapFloorGrowthMbPerMin).toBeLessThan(8);
      expect(projector.child.exitCode).toBeNull();
    },
    (seconds + 120) * 1000,
  );
});
