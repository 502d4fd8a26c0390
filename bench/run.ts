import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Kysely, sql } from 'kysely';
import { eventCatalogue } from '@shop/contracts';
import { createDatabase, ensureDatabase } from '@shop/db';
import { connectNats, EventStore } from '@shop/eventstore';
import { projectionUnits } from '@shop/projections';
import { readModelProjections } from '@shop/read-models';
import { createRedis, redisReady } from '@shop/redis';
import { openDataKeyVault } from '@shop/wallets';
import { ApiClient } from './api-client';
import { BenchNames, benchNames, BenchStack, startBenchStack } from './bench-stack';
import { buildServices } from './build-services';
import {
  BENCH_POOL_DURING_TRACING,
  benchDemands,
  benchPoolFor,
  checkConnectionBudget,
  TRACING_POOL_SIZE,
} from './connection-budget';
import { measureEncryptionCost } from './encryption-cost';
import { eventsPerUser } from './event-history';
import { idleSchemaSuffixes, measureIdleStack, stackPackages } from './idle-stack';
import { lightLoadFloor } from './light-load-floor';
import { growth, memory, pacedWrites, PhaseContext, rawPath, readPath, rebuild, writePath } from './phases';
import { readFloor } from './read-floor';
import { renderTable, resultRows } from './report';
import { gatewayLayerTable, RunResults } from './profile-layers';
import { profileThisProcess } from './self-profile';
import { measureProjectorThroughput } from './projector-throughput';
import { readServerConnections } from './server-connections';
import { sustainedSaturation } from './sustained-saturation';
import { measureTracingCost, tracingVariants } from './tracing-cost';
import { onboardUsers } from './users';

/**
 * `npm run bench`: builds the services as the Dockerfile does and starts the compiled gateway and
 * projector with NODE_ENV=production on a stream and schema of their own, signs users in through
 * the provider stand-in, and measures start-up, an idle stack, the write path, the raw floor
 * under it, the read path, write-to-readable latency at a fixed rate (with the machine's own light-load
 * floor beside it: a bare Node HTTP server at that rate against saturated), how latency and rebuild
 * time grow with the stream, a rebuild of every projection from >= 200,000 events, projector
 * throughput with one and two processes on one partitioned stream (with what the stream and the
 * read models hold per event and per row), the cart projection's lag under writes at the maximum
 * for minutes and its catch-up after the projector stopped under them, the services' memory, and what sealing personal fields costs on appends and rebuild (a tenth of the rebuild's
 * events, clear against sealed; alone: `npm run bench:encryption`), and what tracing costs a
 * command (stacks exporting every span, a tenth of the traces, and every span with query spans,
 * beside two untraced ones, whose difference is the noise floor, all under load at once). Prints every figure with its
 * target and writes bench/results/<timestamp>.json.
 *
 * Flags: --seconds N per load phase (20), --concurrency N (32), --events N for the rebuild
 * (200000), --idle-seconds N (60), --idle-settle-seconds N (60: start-up work, V8's
 * first full collections among it, is not idling), --growth-events N (12500: the 1x of the growth phase, which
 * goes to 16x), --phases idle,write,raw,read,paced,growth,rebuild,throughput,saturation,encryption,tracing
 * (all), --throughput-events N (100000), --throughput-partitions N (4: STREAM_PARTITIONS there),
 * --tracing-rounds N (6: slices of the tracing cost, each a quarter of --seconds),
 * --tracing-rate N (20 cart operations/s per stack in those slices), --tracing-pool-size N (5:
 * DATABASE_POOL_SIZE of each tracing stack's gateway and projector), --saturation-minutes N (5:
 * the sustained-saturation phase's writes at the maximum; fractions allowed, 0.5 is 30 s),
 * --saturation-stopped-seconds N (60: how long that phase stops the projector under the same
 * load before timing its catch-up), --profile
 * (V8 CPU profiles of the gateway and projector under bench/results/profiles-*), --projector-env
 * KEY=VALUE (see below), --transpiled (TypeScript through the runtime transpiler in development
 * mode, as `npm start` runs it, instead of the build), --baseline <results.json> (an earlier
 * run, the "today" the read efficiency target is relative to), --keep (leave streams and schemas).
 */
const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] ? args[at + 1]! : fallback;
};
const seconds = Number(option('seconds', '20'));
const concurrency = Number(option('concurrency', '32'));
const minEvents = Number(option('events', '200000'));
const idleSeconds = Number(option('idle-seconds', '60'));
const idleSettleSeconds = Number(option('idle-settle-seconds', '60'));
const growthEvents = Number(option('growth-events', '12500'));
const phases = new Set(
  option('phases', 'idle,write,raw,read,paced,growth,rebuild,throughput,saturation,encryption,tracing').split(
    ',',
  ),
);
const saturationMinutes = Number(option('saturation-minutes', '5'));
const saturationStoppedSeconds = Number(option('saturation-stopped-seconds', '60'));
const tracingRounds = Number(option('tracing-rounds', '6'));
const tracingRate = Number(option('tracing-rate', '20'));
const tracingPoolSize = Number(option('tracing-pool-size', String(TRACING_POOL_SIZE)));
const benchPoolSize = benchPoolFor(concurrency);
const throughputEvents = Number(option('throughput-events', '100000'));
const throughputPartitions = Number(option('throughput-partitions', '4'));
const compiled = !args.includes('--transpiled');
const baselineFile = option('baseline', '');
const fixedCommandRate = 200;
const usersPerWorker = 4;
const profileDir = args.includes('--profile')
  ? resolve(__dirname, 'results', `profiles-${Date.now()}`)
  : null;

/** Preloads the profiler into every service the bench starts (see cpu-profile.cjs). */
const profileSettings: Record<string, string> = profileDir
  ? { NODE_OPTIONS: `--require ${resolve(__dirname, 'cpu-profile.cjs')}`, BENCH_PROFILE_DIR: profileDir }
  : {};

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const env = process.env;
const databaseUrl = env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/shop';
const natsUrl = env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** The settings the stack runs with here; written into the results. */
const settings: Record<string, string> = {
  NODE_ENV: compiled ? 'production' : 'development',
  // A request log line per request at info level: measured without it, as an operator at scale would run.
  LOG_LEVEL: 'warn',
  // The spec's 30 requests per minute per user would throttle the load within a second.
  RATE_LIMIT_RPM: '100000000',
  // As deployed (libs/config's default); the growth phase's cold loads read the snapshots.
  AGGREGATE_SNAPSHOT_EVERY: '32',
  // The stand-ins the bench measures with, by name: production runs neither unless named.
  PRODUCT_SERVICE: 'mock',
  CHAT_MODEL: 'offline',
  DATABASE_URL: databaseUrl,
  NATS_URL: natsUrl,
};

/**
 * Production refuses to start without a NATS credential. The machine's NATS is open and takes any,
 * so the bench brings one of its own unless the shell names one (for a NATS that checks them).
 * Kept out of `settings`, which the results record.
 */
const natsCredential: Record<string, string> = {
  NATS_USER: env.NATS_USER || 'bench',
  NATS_PASSWORD: env.NATS_PASSWORD || randomBytes(16).toString('hex'),
};

/**
 * `--projector-env KEY=VALUE` (repeatable) sets a variable for the projector alone, for
 * experiments: `PROJECTIONS=users,cart_items` (only what cart commands wait for), or
 * `DATABASE_URL=...?options=-c%20synchronous_commit%3Doff` (no fsync wait per batch).
 */
const projectorSettings: Record<string, string> = Object.fromEntries(
  args.flatMap((arg, i) => {
    if (arg !== '--projector-env' || !args[i + 1]?.includes('=')) return [];
    const setting = args[i + 1]!;
    return [[setting.slice(0, setting.indexOf('=')), setting.slice(setting.indexOf('=') + 1)]];
  }),
);

async function main(): Promise<void> {
  const names = benchNames();
  const startedAt = new Date();
  const loadBefore = loadavg();
  log(
    `run ${names.runId}: stream ${names.stream}, schema ${names.schema}; load average ${loadBefore.join(' ')}`,
  );
  // A fresh machine has no database yet; `npm start` would create it, the bench must too.
  if (await ensureDatabase(databaseUrl)) log(`created the database of ${databaseUrl}`);
  // Before anything is built or started: a phase past the server's connections would fail minutes in.
  checkConnectionBudget(
    await readServerConnections(databaseUrl),
    benchDemands({
      benchPool: benchPoolSize,
      tracing: phases.has('tracing')
        ? {
            stacks: tracingVariants.length,
            pools: { gateway: tracingPoolSize, projector: tracingPoolSize },
            benchPool: BENCH_POOL_DURING_TRACING,
          }
        : null,
    }),
  );
  const build = compiled
    ? { seconds: buildServices(phases.has('idle') ? stackPackages : ['@shop/gateway', '@shop/projector']) }
    : null;
  if (build) log(`built the services in ${build.seconds.toFixed(1)} s`);
  const nc = await connectNats({ NATS_URL: natsUrl, ...natsCredential }, 'bench');
  let database = createDatabase(databaseUrl, { max: benchPoolSize, applicationName: 'bench' });
  let db = database.db as Kysely<unknown>;
  const stack = await startBenchStack(
    names,
    env,
    {
      ...settings,
      ...natsCredential,
      ...profileSettings,
    },
    projectorSettings,
    compiled,
  );
  const api = new ApiClient(stack.gatewayUrl, concurrency);
  const results: Record<string, unknown> = {
    startup: {
      runs: compiled ? 'compiled (dist/, NODE_ENV=production)' : 'transpiled (src/, development)',
      gatewaySeconds: Math.round(stack.startupSeconds.gateway * 100) / 100,
      projectorSeconds: Math.round(stack.startupSeconds.projector * 100) / 100,
    },
  };
  const rss: Record<string, unknown> = { afterStart: memory(stack) };
  results.memory = rss;
  try {
    /** With --profile, the services' CPU profiles of `phase` alone (see cpu-profile.cjs). */
    const profiled = async <T>(phase: string, work: () => Promise<T>): Promise<T> => {
      if (!profileDir) return work();
      await markProfiles(stack, profileDir, `before-${phase}`);
      const result = await work();
      await markProfiles(stack, profileDir, phase);
      return result;
    };
    if (phases.has('idle')) {
      results.idle = await measureIdleStack({
        names,
        // At the stack's own log level, as `npm start` runs it: the ready lines are info lines.
        settings: {
          ...Object.fromEntries(Object.entries(settings).filter(([name]) => name !== 'LOG_LEVEL')),
          ...natsCredential,
        },
        compiled,
        seconds: idleSeconds,
        settleSeconds: idleSettleSeconds,
        log,
      });
    }
    log(`onboarding ${concurrency * usersPerWorker} users`);
    const ctx: PhaseContext = {
      stack,
      api,
      users: await onboardUsers(api, stack.provider, concurrency * usersPerWorker, 16, names.runId),
      db,
      databaseUrl,
      snapshotEvery: Number(settings.AGGREGATE_SNAPSHOT_EVERY),
      openStore: async (suffix) =>
        EventStore.create(nc, {
          stream: `${names.stream}_${suffix}`.toUpperCase(),
          subjectPrefix: `${names.subjectPrefix}${suffix}`,
          catalogue: eventCatalogue,
          dataKeys: await openDataKeyVault(db, `${names.schema}_${suffix}_keys`, randomBytes(32)),
        }),
      openLiveStore: async () =>
        EventStore.create(nc, {
          stream: names.stream,
          subjectPrefix: names.subjectPrefix,
          catalogue: eventCatalogue,
          dataKeys: await openDataKeyVault(db, `${names.schema}_secrets`, stack.dataEncryptionKey),
        }),
      concurrency,
      seconds,
      log,
      ...(profileDir ? { markProfiles: (label: string) => markProfiles(stack, profileDir, label) } : {}),
    };
    if (phases.has('write')) {
      results.write = await profiled('write', () => writePath(ctx));
      rss.afterWrite = memory(stack);
    }
    if (phases.has('raw')) results.rawFloor = await rawPath(ctx);
    // With --profile the read phase marks a profile per route itself: read-cart, read-orders.
    if (phases.has('read')) {
      results.read = await readPath(ctx);
      log('(c) read floor: GET /api/cart in Nest on Fastify without our code, saturated');
      const cart = await api.expect(200, 'GET', '/api/cart', { jar: ctx.users[0]!.jar });
      results.readFloor = await readFloor({
        cartBody: JSON.stringify(cart.body),
        redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        keyPrefix: `${names.redisKeyPrefix}read-floor:`,
        seconds,
        concurrency,
        users: ctx.users.length,
      });
    }
    if (phases.has('paced')) {
      results.writeToReadable = await profiled('paced', () => pacedWrites(ctx, fixedCommandRate));
      log(`(d) light-load floor: a bare Node HTTP server at ${fixedCommandRate}/s and saturated`);
      results.lightLoadFloor = await lightLoadFloor({ perSecond: fixedCommandRate, seconds, concurrency });
    }
    if (phases.has('growth'))
      results.growth = await profiled('growth', () => growth(ctx, growthEvents, fixedCommandRate));
    if (phases.has('rebuild'))
      results.rebuild = await rebuild(ctx, minEvents, (work) =>
        profileThisProcess(profileDir, 'rebuild', work),
      );
    if (phases.has('throughput')) {
      results.projectorThroughput = await measureProjectorThroughput({
        nc,
        db,
        names,
        base: env,
        settings: { ...settings, ...natsCredential, ...profileSettings, ...projectorSettings },
        compiled,
        minEvents: throughputEvents,
        partitions: throughputPartitions,
        checkpointRows: projectionUnits(() => readModelProjections(), throughputPartitions).length,
        log,
      });
    }
    if (phases.has('saturation')) {
      results.saturation = await sustainedSaturation(ctx, {
        seconds: saturationMinutes * 60,
        stoppedSeconds: saturationStoppedSeconds,
      });
    }
    if (phases.has('encryption')) {
      results.encryption = await profileThisProcess(profileDir, 'encryption', () =>
        measureEncryptionCost({
          nc,
          db,
          name: `${names.schema}_enc`,
          users: Math.ceil(minEvents / 10 / eventsPerUser),
          rounds: 3,
          log,
        }),
      );
    }
    if (phases.has('tracing')) {
      // Its five stacks need the connections the main stack and the bench's pool hold (see
      // connection-budget.ts): the stack is measured a last time and stopped, the pool closed down
      // to what cleaning up needs.
      rss.atEnd = memory(stack);
      await stack.stop();
      await database.close();
      database = createDatabase(databaseUrl, { max: BENCH_POOL_DURING_TRACING, applicationName: 'bench' });
      db = database.db as Kysely<unknown>;
      const stacks = {
        untraced: benchNames(),
        twin: benchNames(),
        every: benchNames(),
        sampled: benchNames(),
        queries: benchNames(),
      };
      try {
        results.tracing = await measureTracingCost({
          names: stacks,
          base: env,
          settings: {
            ...settings,
            ...natsCredential,
            ...profileSettings,
            DATABASE_POOL_SIZE: String(tracingPoolSize),
          },
          compiled,
          users: 64,
          perSecond: tracingRate,
          rounds: tracingRounds,
          sliceSeconds: Math.max(4, Math.round(seconds / 4)),
          log,
          ...(profileDir ? { markProfiles: (traced, label) => markProfiles(traced, profileDir, label) } : {}),
        });
      } finally {
        if (!args.includes('--keep')) {
          for (const names of Object.values(stacks)) await cleanUp(nc, db, names);
        }
      }
    }
    rss.atEnd ??= memory(stack);
  } finally {
    await api.close();
    await stack.stop();
    if (!args.includes('--keep')) await cleanUp(nc, db, names);
    await database.close();
    await nc.drain();
  }

  const output = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      node: process.version,
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadavg(),
    },
    parameters: {
      seconds,
      concurrency,
      usersPerWorker,
      fixedCommandRate,
      minEvents,
      phases: [...phases],
      idleSeconds,
      growthEvents,
      build,
      settings,
      projectorSettings,
    },
    results,
    ...(profileDir ? { profiles: profileDir } : {}),
  };
  const dir = resolve(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = resolve(dir, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(output, null, 2)}\n`);
  const baseline = baselineFile
    ? (JSON.parse(readFileSync(baselineFile, 'utf8')) as Record<string, unknown>)
    : undefined;
  process.stdout.write(`${renderTable(resultRows(results, baseline))}\n\nresults: ${file}\n`);
  const layers = profileDir ? gatewayLayerTable(profileDir, results as RunResults) : null;
  if (layers) {
    // The table docs/operations.md keeps (The benchmark: the gateway's CPU by layer).
    process.stdout.write(`\ngateway CPU per unit of work, by layer (bench/profile-layers.ts):\n${layers}\n`);
  }
}

/** Has the services write what they sampled since the last mark as <service>-<label>.cpuprofile. */
async function markProfiles(stack: BenchStack, dir: string, label: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(resolve(dir, 'label'), label);
  const services = { gateway: stack.gateway, projector: stack.projector };
  const files = Object.keys(services).map((name) => resolve(dir, `${name}-${label}.cpuprofile`));
  for (const service of Object.values(services)) service.child.kill('SIGWINCH');
  // The profiles are written asynchronously; the next phase must not start (or relabel) before.
  const deadline = Date.now() + 10_000;
  while (!files.every((f) => existsSync(f)) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
}

/** Streams, schemas and Redis keys of this run only. */
async function cleanUp(nc: Awaited<ReturnType<typeof connectNats>>, db: Kysely<unknown>, names: BenchNames) {
  const jsm = await nc.jetstreamManager();
  for (const suffix of ['', '_RAW', '_RB', '_GR', '_IDLE', '_PT']) {
    await jsm.streams.delete(`${names.stream}${suffix}`).catch(() => undefined);
    await jsm.streams.delete(`KV_${names.stream}${suffix}_snapshots`).catch(() => undefined);
  }
  for (const suffix of [
    '',
    '_secrets',
    '_raw',
    '_raw_keys',
    '_rb',
    '_rb_keys',
    '_rb_copy',
    '_rba',
    '_gr',
    '_gr_keys',
    '_pt_keys',
    '_pt1',
    '_pt2',
    ...idleSchemaSuffixes,
  ]) {
    await sql`DROP SCHEMA IF EXISTS ${sql.id(`${names.schema}${suffix}`)} CASCADE`.execute(db);
  }
  const redis = createRedis(env.REDIS_URL ?? 'redis://127.0.0.1:6379', '');
  try {
    if (!(await redisReady(redis))) return;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${names.redisKeyPrefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
