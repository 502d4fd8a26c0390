import { Kysely, sql } from 'kysely';
import { DeciderRunner } from '@shop/commands';
import { cartAggregate } from '@shop/domain';
import { EventStore } from '@shop/eventstore';
import { MetricSample, sampleValue } from '@shop/metrics';
import { rebuildProjections } from '@shop/projections';
import { readModelMigrations, readModelProjections } from '@shop/read-models';
// Services have no path alias (only libs do), so the analytics projections are imported by path.
import { analyticsMigrations, analyticsProjections } from '../services/analytics/src';
import { ApiClient } from './api-client';
import { BenchStack } from './bench-stack';
import { summarize } from './latency';
import { closedLoop, fixedRate } from './load';
import { Pauses, servicePauses, watchOwnPauses } from './pauses';
import { rawFloor } from './raw-floor';
import {
  appendChains,
  appendHistory,
  cartHistory,
  eventsPerUser,
  eventsPerUserOf,
  quietAggregates,
  userHistories,
} from './event-history';
import { measureRebuild } from './rebuild-bench';
import { ioCountsOf, IoCounts, rssMiB, serverCpuBetween, serverCpuSeconds } from './process-stats';
import { cpuSeconds, histogramQuantile, scrape } from './scrape';
import { benchProduct, BenchUser, onboardUsers } from './users';

export interface PhaseContext {
  stack: BenchStack;
  api: ApiClient;
  users: BenchUser[];
  db: Kysely<unknown>;
  /** The database the stack and `db` are on. */
  databaseUrl: string;
  /** The gateway's AGGREGATE_SNAPSHOT_EVERY. */
  snapshotEvery: number;
  openStore(suffix: string): Promise<EventStore>;
  /** The stream the stack runs on. */
  openLiveStore(): Promise<EventStore>;
  concurrency: number;
  seconds: number;
  log(line: string): void;
  /** With --profile: has the services write what they sampled since the last mark, labelled (run.ts). */
  markProfiles?(label: string): Promise<void>;
}

const ms = (seconds: number) => Math.round(seconds * 100_000) / 100;

/** System calls and wake-ups of both services, to be divided by the commands in between. */
function ioCounts(stack: BenchStack): { gateway: IoCounts; projector: IoCounts } {
  return { gateway: ioCountsOf(stack.gateway.child.pid!), projector: ioCountsOf(stack.projector.child.pid!) };
}

function ioPerCommand(
  before: ReturnType<typeof ioCounts>,
  after: ReturnType<typeof ioCounts>,
  commands: number,
) {
  const per = (service: 'gateway' | 'projector', key: keyof IoCounts) =>
    commands > 0 ? Math.round(((after[service][key] - before[service][key]) / commands) * 10) / 10 : 0;
  return {
    gatewaySyscalls: per('gateway', 'syscalls'),
    gatewayWaits: per('gateway', 'waits'),
    projectorSyscalls: per('projector', 'syscalls'),
    projectorWaits: per('projector', 'waits'),
  };
}

/**
 * Read-your-writes between two scrapes: commands answered before their write was readable (each
 * sets the consistency-token cookie), requests the users' cookie jars then sent with a token (each
 * waited for it), and those whose wait ran out (CONSISTENT_READ_TIMEOUT_MS) before it was reached.
 */
function readYourWrites(
  before: { gateway: MetricSample[]; tokensSent: number },
  after: { gateway: MetricSample[]; tokensSent: number },
) {
  const delta = (name: string) => sampleValue(after.gateway, name) - sampleValue(before.gateway, name);
  return {
    commandWaitTimeouts: delta('read_your_writes_timeouts_total'),
    requestsWithToken: after.tokensSent - before.tokensSent,
    consistentReadTimeouts: delta('consistent_read_timeouts_total'),
  };
}

/** Worker `w` cycles through its own users, so no two workers ever write the same cart. */
export function userOf(ctx: PhaseContext, worker: number, iteration: number): BenchUser {
  const perWorker = ctx.users.length / ctx.concurrency;
  return ctx.users[worker + ctx.concurrency * (iteration % perWorker)]!;
}

export async function addAndRemove(api: ApiClient, user: BenchUser): Promise<number[]> {
  const added = await api.expect(201, 'POST', '/api/cart', { jar: user.jar, body: benchProduct() });
  const id = (added.body as { id: string }).id;
  const removed = await api.expect(204, 'DELETE', `/api/cart/${id}`, { jar: user.jar });
  return [added.ms, removed.ms];
}

/** (a) POST + DELETE /api/cart at fixed concurrency; each answer comes once the write is readable. */
export async function writePath(ctx: PhaseContext) {
  const { stack, api, concurrency, seconds } = ctx;
  ctx.log('warming up (5 s)');
  await closedLoop(concurrency, 5, (w, i) => addAndRemove(api, userOf(ctx, w, i)));
  ctx.log(`(a) write path: POST + DELETE /api/cart, concurrency ${concurrency}, ${seconds} s`);
  const [gw0, pr0] = await Promise.all([scrape(stack.gatewayMetricsUrl), scrape(stack.projectorUrl)]);
  const sent0 = api.consistencyTokensSent;
  const io0 = ioCounts(stack);
  const servers0 = serverCpuSeconds();
  const write = await closedLoop(concurrency, seconds, (w, i) => addAndRemove(api, userOf(ctx, w, i)));
  const servers1 = serverCpuSeconds();
  const io1 = ioCounts(stack);
  const [gw1, pr1] = await Promise.all([scrape(stack.gatewayMetricsUrl), scrape(stack.projectorUrl)]);
  const consistency = readYourWrites(
    { gateway: gw0, tokensSent: sent0 },
    { gateway: gw1, tokensSent: api.consistencyTokensSent },
  );
  return {
    ...summarize(write.latencies, write.seconds),
    errors: write.errors,
    firstError: write.firstError,
    readYourWritesTimeouts: consistency.commandWaitTimeouts,
    readYourWrites: consistency,
    writeToReadableP50Ms: ms(
      histogramQuantile(gw0, gw1, 'write_to_readable_seconds', { aggregate: 'cart' }, 0.5),
    ),
    writeToReadableP99Ms: ms(
      histogramQuantile(gw0, gw1, 'write_to_readable_seconds', { aggregate: 'cart' }, 0.99),
    ),
    gatewayCpuSeconds: cpuSeconds(gw0, gw1),
    projectorCpuSeconds: cpuSeconds(pr0, pr1),
    serverCpuSeconds: serverCpuBetween(servers0, servers1),
    perCommand: ioPerCommand(io0, io1, write.latencies.length),
  };
}

/** (b) The same work without our code, at the same concurrency. */
export async function rawPath(ctx: PhaseContext) {
  ctx.log(
    `(b) raw floor: JetStream publish-with-ack + Postgres upsert, concurrency ${ctx.concurrency}, ${ctx.seconds} s`,
  );
  const store = await ctx.openStore('raw');
  const servers0 = serverCpuSeconds();
  const client0 = process.cpuUsage();
  const raw = await rawFloor({
    store,
    databaseUrl: ctx.databaseUrl,
    liveSchema: ctx.stack.names.schema,
    scratchSchema: `${ctx.stack.names.schema}_raw`,
    concurrency: ctx.concurrency,
    seconds: ctx.seconds,
  });
  const client = process.cpuUsage(client0);
  const servers1 = serverCpuSeconds();
  return {
    ...summarize(raw.latencies, raw.seconds),
    errors: raw.errors,
    firstError: raw.firstError,
    // The bench process is the floor's only client: its CPU is what ours spread over the
    // gateway and the projector would be without HTTP, a decider, a consumer or a projection.
    clientCpuSeconds: (client.user + client.system) / 1e6,
    serverCpuSeconds: serverCpuBetween(servers0, servers1),
  };
}

/**
 * (c) GET /api/cart and GET /api/orders of users with three items in their carts, one of them
 * checked out at the provider stand-in: each list holds an open order that is merged with the
 * provider's live view, as a real user's list would.
 */
export async function readPath(ctx: PhaseContext) {
  const { stack, api, users, concurrency, seconds } = ctx;
  ctx.log('(c) read path: filling carts (3 items each) and checking one out');
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let user = users[next++]; user; user = users[next++]) {
        const ids: string[] = [];
        for (let n = 0; n < 3; n++) {
          const added = await api.expect(201, 'POST', '/api/cart', {
            jar: user.jar,
            body: benchProduct(),
          });
          ids.push((added.body as { id: string }).id);
        }
        // In production the provider prices the item itself (the stand-in: up to 104.99 USDC).
        stack.provider.fund(`email:${user.email}:evm`, '200');
        await api.expect(201, 'POST', '/api/checkout', { jar: user.jar, body: { cartItemId: ids[0] } });
      }
    }),
  );
  const read = async (path: string) => {
    await ctx.markProfiles?.(`before-read${path.replaceAll('/', '-').replace('-api', '')}`);
    ctx.log(`(c) read path: GET ${path}, concurrency ${concurrency}, ${seconds} s`);
    const g0 = await scrape(stack.gatewayMetricsUrl);
    const sent0 = api.consistencyTokensSent;
    const servers0 = serverCpuSeconds();
    const result = await closedLoop(concurrency, seconds, async (w, i) => {
      const response = await api.expect(200, 'GET', path, { jar: userOf(ctx, w, i).jar });
      return [response.ms];
    });
    const servers1 = serverCpuSeconds();
    const g1 = await scrape(stack.gatewayMetricsUrl);
    await ctx.markProfiles?.(`read${path.replaceAll('/', '-').replace('-api', '')}`);
    return {
      ...summarize(result.latencies, result.seconds),
      errors: result.errors,
      firstError: result.firstError,
      readYourWrites: readYourWrites(
        { gateway: g0, tokensSent: sent0 },
        { gateway: g1, tokensSent: api.consistencyTokensSent },
      ),
      gatewayCpuSeconds: cpuSeconds(g0, g1),
      serverCpuSeconds: serverCpuBetween(servers0, servers1),
    };
  };
  return { cart: await read('/api/cart'), orders: await read('/api/orders') };
}

/** Cart commands at a fixed rate (open loop), each user alternating add and remove. */
async function paceCommands(ctx: PhaseContext, perSecond: number, seconds: number) {
  const { stack, api, users } = ctx;
  const pending = new Map<BenchUser, string>();
  const [gw0, pr0] = await Promise.all([scrape(stack.gatewayMetricsUrl), scrape(stack.projectorUrl)]);
  const sent0 = api.consistencyTokensSent;
  const io0 = ioCounts(stack);
  const ownPauses = watchOwnPauses();
  const paced = await fixedRate(perSecond, seconds, async (n) => {
    const user = users[n % users.length]!;
    const itemId = pending.get(user);
    if (itemId) {
      pending.delete(user);
      return [(await api.expect(204, 'DELETE', `/api/cart/${itemId}`, { jar: user.jar })).ms];
    }
    const added = await api.expect(201, 'POST', '/api/cart', { jar: user.jar, body: benchProduct() });
    pending.set(user, (added.body as { id: string }).id);
    return [added.ms];
  });
  const bench = ownPauses();
  // Leave no item behind: the next phase may add to the same carts, which hold ten at most.
  await Promise.all(
    [...pending].map(([user, id]) => api.expect(204, 'DELETE', `/api/cart/${id}`, { jar: user.jar })),
  );
  const io1 = ioCounts(stack);
  const [gw1, pr1] = await Promise.all([scrape(stack.gatewayMetricsUrl), scrape(stack.projectorUrl)]);
  const cart = { aggregate: 'cart' };
  return {
    commandsPerSecond: perSecond,
    p50Ms: ms(histogramQuantile(gw0, gw1, 'write_to_readable_seconds', cart, 0.5)),
    p99Ms: ms(histogramQuantile(gw0, gw1, 'write_to_readable_seconds', cart, 0.99)),
    source: "gateway's write_to_readable_seconds histogram (bucket-interpolated, like histogram_quantile)",
    commands: summarize(paced.latencies, paced.seconds),
    errors: paced.errors,
    firstError: paced.firstError,
    readYourWrites: readYourWrites(
      { gateway: gw0, tokensSent: sent0 },
      { gateway: gw1, tokensSent: api.consistencyTokensSent },
    ),
    gatewayCpuSeconds: cpuSeconds(gw0, gw1),
    projectorCpuSeconds: cpuSeconds(pr0, pr1),
    perCommand: ioPerCommand(io0, io1, paced.latencies.length + pending.size),
    pauses: { gateway: servicePauses(gw0, gw1), projector: servicePauses(pr0, pr1), bench } satisfies Pauses,
    // The same commands as the gateway timed them, from its first byte to its last: a p99 far below
    // the bench's own puts a stall outside the gateway (the load client, the kernel).
    gatewayHandlingP99Ms: {
      add: ms(histogramQuantile(gw0, gw1, 'http_request_duration_seconds', { route: '/api/cart' }, 0.99)),
      remove: ms(
        histogramQuantile(gw0, gw1, 'http_request_duration_seconds', { route: '/api/cart/:itemId' }, 0.99),
      ),
      appendAck: ms(histogramQuantile(gw0, gw1, 'event_append_seconds', cart, 0.99)),
    },
  };
}

/** (d) Commands at a fixed rate (open loop); write-to-readable from the gateway's histogram. */
export async function pacedWrites(ctx: PhaseContext, perSecond: number) {
  ctx.log(`(d) write-to-readable at ${perSecond} commands/s, ${ctx.seconds} s`);
  return paceCommands(ctx, perSecond, ctx.seconds);
}

/** Commits in the cart history of each long-history user at 1x (4x and 16x: 32 and 128). */
const cartCommitsAt1x = 8;
/** Long-history users per point: enough for a p99 of cold commands. */
const longHistoryUsers = 32;

/**
 * (h) Cost as work grows, at 1x, 4x and 16x:
 * - the live stream grows by `scale * baseEvents` of generated carts and chat sessions (nothing a
 *   running gateway reacts to; what earlier phases wrote is reported beside, not counted in the
 *   scale), and commands run at a fixed rate once the projector has caught up: flat is expected;
 * - users with long cart histories (8 commits per user at 1x), appended behind the gateway's
 *   back (with the snapshots the gateway would have taken meanwhile), so their first command
 *   loads the aggregate from its snapshot and the commits after it (cold) and their second finds
 *   it in the gateway's cache (warm): latency and gateway CPU of each, both flat;
 * - every read-model projection is rebuilt from a stream of exactly `scale * baseEvents` events
 *   of whole user histories, a stream of its own: at most linear.
 * Warmed up first (commands and a rebuild), so the first point is no outlier.
 */
export async function growth(ctx: PhaseContext, baseEvents: number, perSecond: number) {
  const live = await ctx.openLiveStore();
  const fresh = await ctx.openStore('gr');
  await fresh.provision();
  const schema = `${ctx.stack.names.schema}_gr`;
  const earlierEvents = await live.lastStreamSequence();
  const rebuildAll = async () => {
    const started = performance.now();
    const rebuilt = await rebuildProjections({
      store: fresh,
      db: ctx.db,
      schema,
      projections: readModelProjections(),
      migrations: readModelMigrations,
    });
    const seconds = (performance.now() - started) / 1000;
    return { events: rebuilt.events, seconds, eventsPerSecond: Math.round(rebuilt.events / seconds) };
  };
  const points: {
    scale: number;
    liveEvents: { appended: number; earlierPhases: number };
    write: Awaited<ReturnType<typeof paceCommands>>;
    aggregates: Awaited<ReturnType<typeof coldAndWarm>>;
    rebuild: { events: number; seconds: number; eventsPerSecond: number };
  }[] = [];
  let appendedLive = 0;
  let appendedFresh = 0;
  for (const scale of [1, 4, 16]) {
    const target = scale * baseEvents;
    ctx.log(`(h) growth ${scale}x: growing the live stream and a stream of its own by ${target} events`);
    const [liveAdded, freshAdded] = await Promise.all([
      appendHistory(
        live,
        Math.ceil((target - appendedLive) / eventsPerUserOf(quietAggregates)),
        256,
        quietAggregates,
      ),
      appendChains(fresh, userHistories(Math.ceil((target - appendedFresh) / eventsPerUser)), 256),
    ]);
    appendedLive += liveAdded;
    appendedFresh += freshAdded;
    await untilProjected(ctx, await live.lastStreamSequence());
    if (scale === 1) {
      ctx.log('(h) growth: warming up (5 s of commands, one rebuild)');
      await paceCommands(ctx, perSecond, 5);
      await rebuildAll();
    }
    const aggregates = await coldAndWarm(ctx, live, cartCommitsAt1x * scale, `${scale}x`);
    ctx.log(`(h) growth ${scale}x: ${perSecond} commands/s for ${ctx.seconds} s, then a rebuild`);
    const write = await paceCommands(ctx, perSecond, ctx.seconds);
    const rebuilt = await rebuildAll();
    points.push({
      scale,
      liveEvents: { appended: appendedLive, earlierPhases: earlierEvents },
      write,
      aggregates,
      rebuild: {
        events: rebuilt.events,
        seconds: Math.round(rebuilt.seconds * 100) / 100,
        eventsPerSecond: rebuilt.eventsPerSecond,
      },
    });
  }
  type Point = (typeof points)[number];
  const curve = (
    name: string,
    unit: string,
    expect: 'flat' | 'linear',
    work: (p: Point) => number,
    value: (p: Point) => number,
  ) => ({
    name,
    unit,
    expect,
    points: points.map((p) => ({ scale: p.scale, work: work(p), value: value(p) })),
  });
  const liveWork = (p: Point) => p.liveEvents.appended;
  const history = (p: Point) => p.aggregates.cartCommits;
  return {
    baseEvents,
    earlierEvents,
    points,
    curves: [
      curve(`command p99 @ ${perSecond}/s`, 'ms', 'flat', liveWork, (p) => p.write.commands.p99Ms),
      curve(`write-to-readable p99 @ ${perSecond}/s`, 'ms', 'flat', liveWork, (p) => p.write.p99Ms),
      curve('cold command (aggregate loaded) p50', 'ms', 'flat', history, (p) => p.aggregates.cold.p50Ms),
      curve('cold command gateway CPU', 'ms', 'flat', history, (p) => p.aggregates.cold.gatewayCpuMs),
      curve('warm command (aggregate cached) p50', 'ms', 'flat', history, (p) => p.aggregates.warm.p50Ms),
      curve('warm command gateway CPU', 'ms', 'flat', history, (p) => p.aggregates.warm.gatewayCpuMs),
      curve(
        'rebuild of its own stream',
        's',
        'linear',
        (p) => p.rebuild.events,
        (p) => p.rebuild.seconds,
      ),
    ],
  };
}

/**
 * New users whose carts already hold `cartCommits` commits, written to the stream directly, so
 * the gateway has never loaded them: each one's first add loads the aggregate (cold), its second
 * finds it cached (warm). Four at a time, so neither waits on a queue.
 */
async function coldAndWarm(ctx: PhaseContext, store: EventStore, cartCommits: number, label: string) {
  const { api, stack } = ctx;
  const users = await onboardUsers(
    api,
    stack.provider,
    longHistoryUsers,
    16,
    `${stack.names.runId}-${label}`,
  );
  await appendChains(
    store,
    users.map((u) => cartHistory(u.userId, cartCommits)),
    64,
  );
  // The gateway snapshots a cart every AGGREGATE_SNAPSHOT_EVERY commits as its history grows
  // through commands; this one was appended past it, so a runner of the bench's own loads each
  // cart once and writes the snapshot another gateway would have.
  const snapshotter = new DeciderRunner(store, {
    snapshots: { store: store.snapshots, key: stack.snapshotKey, every: ctx.snapshotEvery },
  });
  for (const user of users) await snapshotter.state(cartAggregate, user.userId);
  await snapshotter.snapshotsWritten();
  // The history is consumed (projected, reacted to) before either round, so neither round's
  // gateway CPU counts the consumption of 4,096 commits appended just before it.
  await untilConsumed(store);
  const added = new Map<BenchUser, string[]>();
  const round = async () => {
    const g0 = await scrape(stack.gatewayMetricsUrl);
    let next = 0;
    const latencies: number[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let user = users[next++]; user; user = users[next++]) {
          const response = await api.expect(201, 'POST', '/api/cart', {
            jar: user.jar,
            body: benchProduct(),
          });
          added.set(user, [...(added.get(user) ?? []), (response.body as { id: string }).id]);
          latencies.push(response.ms);
        }
      }),
    );
    const g1 = await scrape(stack.gatewayMetricsUrl);
    const { p50Ms, p99Ms } = summarize(latencies, 1);
    return { p50Ms, p99Ms, gatewayCpuMs: cpuMsPer(cpuSeconds(g0, g1), latencies.length) };
  };
  ctx.log(
    `(h) growth ${label}: first and second command of ${users.length} users with ${cartCommits} cart commits`,
  );
  const cold = await round();
  const warm = await round();
  await Promise.all(
    [...added].flatMap(([user, ids]) =>
      ids.map((id) => api.expect(204, 'DELETE', `/api/cart/${id}`, { jar: user.jar })),
    ),
  );
  return {
    cartCommits,
    cold,
    warm,
    coldToWarmCpu:
      warm.gatewayCpuMs > 0 ? Math.round((cold.gatewayCpuMs / warm.gatewayCpuMs) * 100) / 100 : 0,
  };
}

const cpuMsPer = (cpuSeconds: number, commands: number) =>
  commands > 0 ? Math.round((cpuSeconds / commands) * 100_000) / 100 : 0;

/** Until every projection's checkpoint in the live schema has reached `sequence`. */
async function untilProjected(ctx: PhaseContext, sequence: number, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const checkpoints = sql.table(`${ctx.stack.names.schema}.projection_checkpoints`);
  for (;;) {
    const { rows } = await sql<{
      lowest: string | null;
    }>`SELECT min(position) AS lowest FROM ${checkpoints}`.execute(ctx.db);
    if (Number(rows[0]?.lowest ?? 0) >= sequence) return;
    if (Date.now() > deadline)
      throw new Error(`the projector did not reach ${sequence} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Until every consumer of the stream (projections, reactions) has nothing pending or unacknowledged. */
async function untilConsumed(store: EventStore, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let busy = 0;
    // A consumer removed while the list is read (a commit follower's, re-made after a stall) is listed as null.
    for await (const info of store.jsm.consumers.list(store.stream))
      if (info) busy += info.num_pending + info.num_ack_pending;
    if (busy === 0) return;
    if (Date.now() > deadline)
      throw new Error(`the stream's consumers still had ${busy} messages after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** (f) Resident memory of both services now, from /proc. */
export function memory(stack: BenchStack) {
  return {
    gatewayRssMiB: rssMiB(stack.gateway.child.pid!),
    projectorRssMiB: rssMiB(stack.projector.child.pid!),
  };
}

/** (e) Every read-model projection, then the analytics ones, rebuilt from one generated stream. */
export async function rebuild(
  ctx: PhaseContext,
  minEvents: number,
  profiled?: <T>(work: () => Promise<T>) => Promise<T>,
) {
  ctx.log('(e) rebuild');
  const store = await ctx.openStore('rb');
  const readModel = await measureRebuild({
    store,
    db: ctx.db,
    schema: `${ctx.stack.names.schema}_rb`,
    projections: readModelProjections(),
    migrations: readModelMigrations,
    minEvents,
    runId: ctx.stack.names.runId,
    log: ctx.log,
    profiled,
  });
  ctx.log('(e) rebuilding the analytics projections from the same stream');
  const started = performance.now();
  const analytics = await rebuildProjections({
    store,
    db: ctx.db,
    schema: `${ctx.stack.names.schema}_rba`,
    projections: analyticsProjections,
    migrations: analyticsMigrations,
  });
  const seconds = (performance.now() - started) / 1000;
  return {
    readModel,
    analytics: {
      events: analytics.events,
      seconds: Math.round(seconds * 100) / 100,
      eventsPerSecond: Math.round(analytics.events / seconds),
    },
  };
}
