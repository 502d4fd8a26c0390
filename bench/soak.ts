import { appendFileSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureDatabase } from '@shop/db';
import { parsePrometheusText, sampleValue } from '@shop/metrics';
import { startApifySandbox } from '@shop/sandbox-apify';
import { freePort, ServiceProcess, startServiceProcess } from '@shop/testing';
import {
  checkpoints,
  Client,
  product,
  serviceEntry,
  Stack,
  TestResponse,
  webhookSecret,
} from '../test/reliability/harness';
import { buildServices } from './build-services';
import { rssMiB } from './process-stats';

/**
 * `npm run soak -- --minutes 60 --rps 80`: the gateway, projector and search service as processes,
 * built as the image builds them (development rules, so the harness's sign-in and plain-HTTP
 * cookies work), under the soak test's steady mixed load (reads, cart adds and removals, sessions, onboarding,
 * checkouts approved through the provider's webhooks) plus searches and product look-ups on the
 * search service, for a given time. Every minute it writes one JSON line per minute to
 * bench/results/soak-<start>.jsonl: requests, errors, p99, projection lag, and per service its RSS
 * and heap floor (the least heap used of the minute's one-second samples: what survives
 * collections). At the end it writes the summary the bounds are read from (RSS over the
 * last half, its spread, errors) to bench/results/soak-<start>.json and prints it.
 *
 * Flags: --minutes N (10), --rps N (80), --workers N (8), --max-old-space-size MiB (every
 * service's heap ceiling, as the Dockerfile sets it; unset: Node's default), --heap-snapshots M,M
 * (minutes at which the gateway writes a heap snapshot into bench/results/heap-<start>/, the load
 * pausing meanwhile; compare them with scripts/heap-diff.mjs), --transpiled (the TypeScript
 * through the runtime transpiler, as `npm start` runs it: its compiler adds about 75 MiB to each
 * service's RSS).
 */
const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] ? args[at + 1]! : fallback;
};
const minutes = Number(option('minutes', '10'));
const targetRps = Number(option('rps', '80'));
const workers = Number(option('workers', '8'));
const maxOldSpace = option('max-old-space-size', '');
const compiled = !args.includes('--transpiled');
const snapshotMinutes = option('heap-snapshots', '').split(',').filter(Boolean).map(Number);
const searchShare = 0.05;
/** An item still in the cart this long after its checkout had its order fail (see the shoppers' loop). */
const givenBackAfterMs = 120_000;
const searchQueries = ['running shoes', 'desk lamp', 'coffee grinder', 'wool socks', 'phone case'];

const log = (line: string) => process.stderr.write(`[soak] ${new Date().toISOString()} ${line}\n`);
const startedAt = new Date();
const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
const resultsDir = resolve(__dirname, 'results');
const linesFile = resolve(resultsDir, `soak-${stamp}.jsonl`);
const summaryFile = resolve(resultsDir, `soak-${stamp}.json`);
const snapshotDir = resolve(resultsDir, `heap-${stamp}`);

interface Service {
  name: string;
  process: ServiceProcess;
  metricsUrl: string;
}

interface Minute {
  requests: number;
  errors: number;
  firstError?: string;
  latencies: number[];
  heap: Record<string, number[]>;
  rss: Record<string, number[]>;
  external: Record<string, number[]>;
  /** The command side's aggregate cache (aggregate_cache_bytes), last reading. */
  aggregateCache: Record<string, number>;
  lag: number[];
}

const emptyMinute = (): Minute => ({
  requests: 0,
  errors: 0,
  latencies: [],
  heap: {},
  rss: {},
  external: {},
  aggregateCache: {},
  lag: [],
});
const round = (n: number) => Math.round(n * 10) / 10;
const mib = (bytes: number) => bytes / 2 ** 20;

async function main(): Promise<void> {
  mkdirSync(resultsDir, { recursive: true });
  if (compiled) {
    const seconds = buildServices(['@shop/gateway', '@shop/projector', '@shop/search']);
    log(`built the services in ${seconds.toFixed(1)} s`);
  }
  const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/shop_soak';
  await ensureDatabase(databaseUrl);
  const nodeOptions = maxOldSpace ? `--max-old-space-size=${maxOldSpace}` : '';
  const apifyToken = 'soak-apify-token';
  const apify = await startApifySandbox({ token: apifyToken, port: 0 });
  const stack = await Stack.start('soak', {
    gateway: false,
    projector: false,
    vars: { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', NODE_ENV: 'development' },
  });
  const services: Service[] = [];
  try {
    const projectorMetrics = await freePort();
    const projector = stack.spawnProjector(
      { METRICS_PORT: String(projectorMetrics), ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) },
      compiled,
    );
    services.push({
      name: 'projector',
      process: projector,
      metricsUrl: `http://127.0.0.1:${projectorMetrics}`,
    });
    const gatewayOptions = [
      nodeOptions,
      snapshotMinutes.length > 0 ? `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshotDir}` : '',
    ]
      .filter(Boolean)
      .join(' ');
    if (snapshotMinutes.length > 0) mkdirSync(snapshotDir, { recursive: true });
    const gateway = await stack.spawnGateway(
      gatewayOptions ? { NODE_OPTIONS: gatewayOptions } : {},
      compiled,
    );
    stack.provider.setWebhookTarget(`${gateway.url}/api/webhooks/provider`, webhookSecret);
    services.push({ name: 'gateway', process: gateway.process, metricsUrl: gateway.metricsUrl });
    const [searchPort, searchMetrics] = await Promise.all([freePort(), freePort()]);
    const search = startServiceProcess(
      serviceEntry('search', compiled),
      {
        ...stack.vars,
        ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
        PORT: String(searchPort),
        METRICS_PORT: String(searchMetrics),
        SEARCH_SCHEMA: `${stack.env.schema}_search`,
        // Each soak client names its own address: the search routes' per-address limit is not the load.
        TRUST_PROXY: '127.0.0.1',
        APIFY_API_TOKEN: apifyToken,
        APIFY_API_BASE_URL: apify.url,
      },
      { compiled },
    );
    const searchUrl = `http://127.0.0.1:${searchPort}`;
    await untilReady(`http://127.0.0.1:${searchMetrics}`, search);
    services.push({ name: 'search', process: search, metricsUrl: `http://127.0.0.1:${searchMetrics}` });
    log(`stack up: gateway ${gateway.url}, search ${searchUrl}; results ${linesFile}`);

    const shoppers = [];
    for (let i = 0; i < workers; i++)
      shoppers.push(await stack.shopper({ url: gateway.url, funds: '100000000' }));
    const store = await stack.store();

    let minute = emptyMinute();
    const minutesDone: Record<string, unknown>[] = [];
    let paused: Promise<void> | null = null;
    const firstErrors: string[] = [];
    /** Failures by route and status, e.g. `POST /api/cart 503`. */
    const errorsByKind: Record<string, number> = {};
    const started = Date.now();
    let deadline = started + minutes * 60_000;
    let searchClient = 0;
    let approvalsRefused = 0;

    const timed = async (work: () => Promise<{ status: number; text: string }>, what: string) => {
      const t0 = performance.now();
      let res: { status: number; text: string };
      try {
        res = await work();
      } catch (error) {
        res = { status: 0, text: error instanceof Error ? error.message : String(error) };
      }
      minute.latencies.push(performance.now() - t0);
      minute.requests++;
      const okStatus = res.status < 300 || (res.status === 404 && what.includes('/product/'));
      if (!okStatus) {
        minute.errors++;
        minute.firstError ??= `${what} -> ${res.status} ${res.text.slice(0, 200)}`;
        const kind = `${what.replace(/[0-9a-f-]{36}|B0\d{8}|\?.*$/g, ':id')} ${res.status}`;
        errorsByKind[kind] = (errorsByKind[kind] ?? 0) + 1;
        if (firstErrors.length < 20) firstErrors.push(`${what} -> ${res.status} ${res.text.slice(0, 200)}`);
      }
      return res;
    };
    const call = (client: Client, method: string, path: string, body?: unknown) =>
      timed(() => client.request(method, path, body), `${method} ${path}`) as Promise<TestResponse>;
    const searchCall = (path: string) =>
      timed(async () => {
        const address = `10.${(searchClient >> 16) & 255}.${(searchClient >> 8) & 255}.${searchClient++ & 255}`;
        const res = await fetch(`${searchUrl}${path}`, {
          headers: { 'x-forwarded-for': address },
          signal: AbortSignal.timeout(30_000),
        });
        return { status: res.status, text: await res.text() };
      }, `GET search${path}`);

    const scrapeService = async (service: Service) => {
      const pid = service.process.child.pid!;
      (minute.rss[service.name] ??= []).push(rssMiB(pid));
      const text = await fetch(`${service.metricsUrl}/metrics`, { signal: AbortSignal.timeout(5000) }).then(
        (r) => r.text(),
        () => '',
      );
      const samples = parsePrometheusText(text);
      const used = sampleValue(samples, 'nodejs_heap_size_used_bytes');
      if (used !== undefined && used > 0) (minute.heap[service.name] ??= []).push(mib(used));
      const external = sampleValue(samples, 'nodejs_external_memory_bytes');
      if (external !== undefined && external > 0) (minute.external[service.name] ??= []).push(mib(external));
      const cached = samples.find((sample) => sample.name === 'aggregate_cache_bytes');
      if (cached) minute.aggregateCache[service.name] = mib(cached.value);
    };

    const closeMinute = (index: number) => {
      const m = minute;
      minute = emptyMinute();
      const sorted = [...m.latencies].sort((a, b) => a - b);
      const line: Record<string, unknown> = {
        minute: index,
        at: new Date().toISOString(),
        requests: m.requests,
        rps: round(m.requests / 60),
        errors: m.errors,
        ...(m.firstError ? { firstError: m.firstError } : {}),
        p50Ms: Math.round(sorted[Math.floor(sorted.length * 0.5)] ?? 0),
        p99Ms: Math.round(sorted[Math.floor(sorted.length * 0.99)] ?? 0),
        maxLag: m.lag.length ? Math.max(...m.lag) : null,
        loadAverage: round(loadavg()[0]!),
      };
      for (const { name } of services) {
        line[name] = {
          rssMiB: m.rss[name]?.length ? Math.max(...m.rss[name]) : null,
          rssMinMiB: m.rss[name]?.length ? Math.min(...m.rss[name]) : null,
          heapFloorMiB: m.heap[name]?.length ? round(Math.min(...m.heap[name])) : null,
          heapPeakMiB: m.heap[name]?.length ? round(Math.max(...m.heap[name])) : null,
          externalMiB: m.external[name]?.length ? round(Math.min(...m.external[name])) : null,
          ...(m.aggregateCache[name] !== undefined
            ? { aggregateCacheMiB: round(m.aggregateCache[name]) }
            : {}),
        };
      }
      minutesDone.push(line);
      appendFileSync(linesFile, `${JSON.stringify(line)}\n`);
      log(JSON.stringify(line));
    };

    const snapshot = async (at: number) => {
      let release!: () => void;
      paused = new Promise((r) => (release = r));
      const before = new Set(readdirSync(snapshotDir));
      gateway.process.child.kill('SIGUSR2');
      // The snapshot is written synchronously by the gateway: done once its file stops growing.
      let size = -1;
      for (;;) {
        await sleep(2000);
        const file = readdirSync(snapshotDir).find((f) => !before.has(f));
        const now = file ? statSync(resolve(snapshotDir, file)).size : 0;
        if (now > 0 && now === size) {
          log(`heap snapshot at minute ${at}: ${resolve(snapshotDir, file!)}`);
          break;
        }
        size = now;
      }
      paused = null;
      release();
    };

    let running = true;
    const sampler = (async () => {
      let index = 0;
      const pending = [...snapshotMinutes];
      while (running) {
        const tick = Date.now();
        for (const service of services)
          if (service.process.child.exitCode !== null || service.process.child.signalCode !== null)
            throw new Error(
              `${service.name} exited (${service.process.child.exitCode ?? service.process.child.signalCode}):\n${service.process.output().slice(-3000)}`,
            );
        await Promise.all(services.map(scrapeService));
        // A reading that fails (Postgres out of connections, NATS busy) is a gap, not the end of the run.
        try {
          const positions = Object.values(await checkpoints(stack.database, stack.env.schema));
          minute.lag.push((await store.lastStreamSequence()) - Math.min(...positions));
        } catch (error) {
          log(`lag not read: ${error instanceof Error ? error.message : String(error)}`);
        }
        const elapsed = (Date.now() - started) / 60_000;
        if (elapsed >= index + 1) closeMinute(++index);
        if (pending.length > 0 && elapsed >= pending[0]!) await snapshot(pending.shift()!);
        await sleep(Math.max(0, 1000 - (Date.now() - tick)));
      }
    })();

    // A service that died ends the load at once; the run then fails with its output.
    let failure: unknown = null;
    const sampled = sampler.catch((error: unknown) => {
      failure = error;
      deadline = 0;
    });
    const intervalMs = (workers / targetRps) * 1000;
    await Promise.all(
      shoppers.map(async ({ client }, w) => {
        const items: string[] = [];
        const sessions: string[] = [];
        /**
         * Items checked out, by when: they stay in the cart until the provider's webhook confirms
         * the payment, so they count towards its ten items but are not offered again. One still in
         * the cart long after its checkout had its order fail and is the shopper's again.
         */
        const ordered = new Map<string, number>();
        for (let i = 0; Date.now() < deadline; i++) {
          if (paused) await paused;
          const tick = Date.now();
          const roll = (i * 37 + w * 11) % 100;
          if ((i * 7919 + w * 104729) % 1000 < searchShare * 1000) {
            if (i % 3 === 0)
              await searchCall(`/api/search/realtime/product/B0${String(i % 500).padStart(8, '0')}`);
            else
              await searchCall(
                `/api/search/realtime?q=${encodeURIComponent(searchQueries[i % searchQueries.length]!)}`,
              );
          } else if (roll < 45) {
            const reads = [
              '/api/auth/profile',
              '/api/cart',
              '/api/sessions',
              '/api/orders',
              '/api/onboarding/status',
            ];
            const path = reads[i % reads.length]!;
            const res = await call(client, 'GET', path);
            // The client's view of its cart follows what the server says, as a browser's does: an
            // add whose answer was lost, or an order that failed and gave its item back, counts.
            if (path === '/api/cart' && res.status === 200) {
              const inCart = (res.json.items as { id: string }[]).map((item) => item.id);
              for (const [id, at] of ordered)
                if (!inCart.includes(id) || Date.now() - at > givenBackAfterMs) ordered.delete(id);
              items.splice(0, items.length, ...inCart.filter((id) => !ordered.has(id)));
            }
          } else if (roll < 65) {
            if (items.length + ordered.size >= 6) {
              if (items.length > 0) await call(client, 'DELETE', `/api/cart/${items.shift()}`);
              else await call(client, 'GET', '/api/cart');
            } else {
              const res = await call(client, 'POST', '/api/cart', product(`soak-${w}-${i}`, 100 + (i % 50)));
              if (res.status === 201) items.push(res.json.id as string);
            }
          } else if (roll < 80) {
            if (sessions.length > 0 && i % 2 === 0) {
              await call(client, 'PATCH', `/api/sessions/${sessions[i % sessions.length]}`, {
                title: `Renamed ${i}`,
              });
            } else {
              const res = await call(client, 'POST', '/api/sessions', { title: `Soak ${i}` });
              if (res.status === 201) {
                sessions.push(res.json.id as string);
                // A user keeps a bounded list of chats open, as a browser tab would.
                if (sessions.length > 20) sessions.shift();
              }
            }
          } else if (roll < 88) {
            await call(client, 'POST', '/api/onboarding/step-1', { displayName: `Soaker ${i}` });
          } else if (items.length > 0) {
            const item = items.shift()!;
            ordered.set(item, Date.now());
            const order = await call(client, 'POST', '/api/checkout', { cartItemId: item });
            if (order.status === 201) {
              try {
                stack.provider.approve(order.json.providerOrderId as string);
              } catch (error) {
                // An order this shopper had approved already: the driver's repeat, not the stack's fault.
                approvalsRefused++;
                if (approvalsRefused === 1) log(`approval refused: ${String(error)}`);
              }
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
    running = false;
    await sampled;
    if (failure) {
      for (const { name, process: service } of services)
        log(
          `${name} (exit ${service.child.exitCode ?? service.child.signalCode}):\n${service.output().slice(-2000)}`,
        );
      throw failure;
    }
    if (minute.requests > 0) closeMinute(minutesDone.length + 1);

    // Whole minutes under load only: the last, partial one is not a minute of the soak.
    const loaded = minutesDone.filter((m) => (m.minute as number) <= minutes);
    const lastHalf = loaded.slice(Math.floor(loaded.length / 2));
    const summary: Record<string, unknown> = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      minutes,
      targetRps,
      workers,
      maxOldSpaceSizeMiB: maxOldSpace || null,
      runs: compiled ? 'compiled (dist/), NODE_ENV=development' : 'transpiled (src/), NODE_ENV=development',
      requests: minutesDone.reduce((s, m) => s + (m.requests as number), 0),
      achievedRps: round(
        minutesDone.reduce((s, m) => s + (m.requests as number), 0) / ((loadEnded - started) / 1000),
      ),
      errors: minutesDone.reduce((s, m) => s + (m.errors as number), 0),
      errorsByKind,
      approvalsRefused,
      firstErrors,
      minutesFile: linesFile,
    };
    for (const { name } of services) {
      const rss = lastHalf.map((m) => (m[name] as { rssMiB: number }).rssMiB);
      const floors = lastHalf.map((m) => (m[name] as { heapFloorMiB: number }).heapFloorMiB);
      const all = loaded.map((m) => (m[name] as { rssMiB: number }).rssMiB);
      summary[name] = {
        rssFirstMinuteMiB: all[0],
        rssLastMiB: all.at(-1),
        rssMaxMiB: Math.max(...all),
        lastHalfRssMinMiB: Math.min(...rss),
        lastHalfRssMaxMiB: Math.max(...rss),
        /** (max - min) / min of the per-minute RSS over the last half of the run. */
        lastHalfRssSpread: round((Math.max(...rss) / Math.min(...rss) - 1) * 1000) / 10,
        lastHalfHeapFloorMiB: [Math.min(...floors), Math.max(...floors)],
      };
    }
    writeFileSync(summaryFile, `${JSON.stringify(summary, null, 2)}\n`);
    process.stdout.write(
      `${JSON.stringify(summary, null, 2)}\nminutes: ${linesFile}\nsummary: ${summaryFile}\n`,
    );
  } finally {
    for (const service of services.filter((s) => s.name === 'search')) await service.process.stop();
    await stack.stop();
    await apify.close();
  }
}

async function untilReady(url: string, service: ServiceProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(`${url}/ready`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (service.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`${url} not ready:\n${service.output().slice(-3000)}`);
    await sleep(100);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
