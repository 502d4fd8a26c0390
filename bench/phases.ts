import { Kysely, sql } from 'kysely';
import { EventStore } from '@shop/eventstore';
import { MetricSample, sampleValue } from '@shop/metrics';
import { rebuildProjections } from '@shop/projections';
import { readModelProjections } from '@shop/read-models';
// Services have no path alias (only libs do), so the analytics projections are imported by path.
import { analyticsMigrations, analyticsProjections } from '../services/analytics/src';
import { ApiClient } from './api-client';
import { BenchStack } from './bench-stack';
import { summarize } from './latency';
import { closedLoop, fixedRate } from './load';
import { rawFloor } from './raw-floor';
import { appendHistory, eventsPerUserOf, quietAggregates } from './event-history';
import { measureRebuild } from './rebuild-bench';
import { ioCountsOf, IoCounts, rssMiB } from './process-stats';
import { cpuSeconds, histogramQuantile, scrape } from './scrape';
import { benchProduct, BenchUser } from './users';

export interface PhaseContext {
  stack: BenchStack;
  api: ApiClient;
  users: BenchUser[];
  db: Kysely<unknown>;
  openStore(suffix: string): Promise<EventStore>;
  /** The stream the stack runs on. */
  openLiveStore(): Promise<EventStore>;
  concurrency: number;
  seconds: number;
  log(line: string): void;
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
function userOf(ctx: PhaseContext, worker: number, iteration: number): BenchUser {
  const perWorker = ctx.users.length / ctx.concurrency;
  return ctx.users[worker + ctx.concurrency * (iteration % perWorker)]!;
}

async function addAndRemove(api: ApiClient, user: BenchUser): Promise<number[]> {
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
  const write = await closedLoop(concurrency, seconds, (w, i) => addAndRemove(api, userOf(ctx, w, i)));
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
    perCommand: ioPerCommand(io0, io1, write.latencies.length),
  };
}

/** (b) The same work without our code, at the same concurrency. */
export async function rawPath(ctx: PhaseContext) {
  ctx.log(
    `(b) raw floor: JetStream publish-with-ack + Postgres upsert, concurrency ${ctx.concurrency}, ${ctx.seconds} s`,
  );
  const raw = await rawFloor({
    store: await ctx.openStore('raw'),
    db: ctx.db,
    liveSchema: ctx.stack.names.schema,
    scratchSchema: `${ctx.stack.names.schema}_raw`,
    concurrency: ctx.concurrency,
    seconds: ctx.seconds,
  });
  return { ...summarize(raw.latencies, raw.seconds), errors: raw.errors, firstError: raw.firstError };
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
    ctx.log(`(c) read path: GET ${path}, concurrency ${concurrency}, ${seconds} s`);
    const g0 = await scrape(stack.gatewayMetricsUrl);
    const sent0 = api.consistencyTokensSent;
    const result = await closedLoop(concurrency, seconds, async (w, i) => {
      const response = await api.expect(200, 'GET', path, { jar: userOf(ctx, w, i).jar });
      return [response.ms];
    });
    const g1 = await scrape(stack.gatewayMetricsUrl);
    return {
      ...summarize(result.latencies, result.seconds),
      errors: result.errors,
      firstError: result.firstError,
      readYourWrites: readYourWrites(
        { gateway: g0, tokensSent: sent0 },
        { gateway: g1, tokensSent: api.consistencyTokensSent },
      ),
      gatewayCpuSeconds: cpuSeconds(g0, g1),
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
  };
}

/** (d) Commands at a fixed rate (open loop); write-to-readable from the gateway's histogram. */
export async function pacedWrites(ctx: PhaseContext, perSecond: number) {
  ctx.log(`(d) write-to-readable at ${perSecond} commands/s, ${ctx.seconds} s`);
  return paceCommands(ctx, perSecond, ctx.seconds);
}

/**
 * (h) Cost as work grows: the live stream is grown to 1x, 4x and 16x `baseEvents` of generated
 * carts and chat sessions (nothing a running gateway reacts to); at each size, once the projector has caught up, commands run at a fixed rate
 * (their latency should stay flat) and every projection is rebuilt from the whole stream into a
 * scratch schema (its time should grow at most linearly with the events).
 */
export async function growth(ctx: PhaseContext, baseEvents: number, perSecond: number) {
  const { stack } = ctx;
  const store = await ctx.openLiveStore();
  const schema = `${stack.names.schema}_gr`;
  const points: {
    scale: number;
    events: number;
    write: Awaited<ReturnType<typeof paceCommands>>;
    rebuild: { seconds: number; eventsPerSecond: number };
  }[] = [];
  let appended = 0;
  for (const scale of [1, 4, 16]) {
    const users = Math.ceil((scale * baseEvents - appended) / eventsPerUserOf(quietAggregates));
    ctx.log(`(h) growth ${scale}x: appending carts and chat sessions to ${scale * baseEvents} events`);
    appended += await appendHistory(store, users, 256, quietAggregates);
    const last = await store.lastStreamSequence();
    await untilProjected(ctx, last);
    ctx.log(`(h) growth ${scale}x: ${perSecond} commands/s for ${ctx.seconds} s, then a rebuild`);
    const write = await paceCommands(ctx, perSecond, ctx.seconds);
    const started = performance.now();
    const rebuilt = await rebuildProjections({
      store,
      db: ctx.db,
      schema,
      projections: readModelProjections(),
    });
    const seconds = (performance.now() - started) / 1000;
    points.push({
      scale,
      events: rebuilt.events,
      write,
      rebuild: {
        seconds: Math.round(seconds * 100) / 100,
        eventsPerSecond: Math.round(rebuilt.events / seconds),
      },
    });
  }
  const curve = (
    name: string,
    unit: string,
    expect: 'flat' | 'linear',
    value: (p: (typeof points)[number]) => number,
  ) => ({
    name,
    unit,
    expect,
    points: points.map((p) => ({ scale: p.scale, events: p.events, value: value(p) })),
  });
  return {
    baseEvents,
    points,
    curves: [
      curve(`command p99 @ ${perSecond}/s`, 'ms', 'flat', (p) => p.write.commands.p99Ms),
      curve(`write-to-readable p99 @ ${perSecond}/s`, 'ms', 'flat', (p) => p.write.p99Ms),
      curve('rebuild of the whole stream', 's', 'linear', (p) => p.rebuild.seconds),
    ],
  };
}

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

/** (f) Resident memory of both services now, from /proc. */
export function memory(stack: BenchStack) {
  return {
    gatewayRssMiB: rssMiB(stack.gateway.child.pid!),
    projectorRssMiB: rssMiB(stack.projector.child.pid!),
  };
}

/** (e) Every read-model projection, then the analytics ones, rebuilt from one generated stream. */
export async function rebuild(ctx: PhaseContext, minEvents: number) {
  ctx.log('(e) rebuild');
  const store = await ctx.openStore('rb');
  const readModel = await measureRebuild({
    store,
    db: ctx.db,
    schema: `${ctx.stack.names.schema}_rb`,
    projections: readModelProjections(),
    minEvents,
    runId: ctx.stack.names.runId,
    log: ctx.log,
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
