import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { EventStore } from '@shop/eventstore';
import { closedLoop, LoadResult } from './load';
import { PhaseContext, userOf, addAndRemove } from './phases';

export interface SaturationOptions {
  /** How long the gateway is written to at its maximum (closed loop at the bench's concurrency). */
  seconds: number;
  /** How long the projector stays stopped, under the same load, before it starts again. */
  stoppedSeconds: number;
}

interface LagSample {
  /** Seconds since the phase began. */
  at: number;
  /** The stream's last sequence minus the furthest-behind cart_items checkpoint. */
  events: number;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/**
 * Where the projection cart commands wait for (cart_items, every partition) stands, from its
 * checkpoint rows, not from the projector, so it is sampled while the projector is down too.
 * Other projections' rows trail lazily by design (a second at most, see the runner), so they
 * would measure that laziness, not the lag.
 */
async function cartCheckpoint(ctx: PhaseContext): Promise<number> {
  const { rows } = await sql<{ least: string | null }>`
    SELECT min(position) AS least FROM ${sql.id(ctx.stack.names.schema)}.projection_checkpoints
     WHERE projection = 'cart_items' OR projection LIKE 'cart_items-p%'`.execute(ctx.db);
  return Number(rows[0]?.least ?? 0);
}

/** How many messages the cart projection trails the stream by. */
async function cartLag(ctx: PhaseContext, store: EventStore): Promise<number> {
  const [last, position] = await Promise.all([store.lastStreamSequence(), cartCheckpoint(ctx)]);
  return Math.max(0, last - position);
}

/** Samples the lag every `everyMs` until `stop` resolves. */
function sampleLag(ctx: PhaseContext, store: EventStore, everyMs: number) {
  const samples: LagSample[] = [];
  const started = performance.now();
  let running = true;
  const done = (async () => {
    while (running) {
      const events = await cartLag(ctx, store).catch(() => null);
      if (events !== null) samples.push({ at: round((performance.now() - started) / 1000, 1), events });
      await sleep(everyMs);
    }
  })();
  return {
    samples,
    async stop() {
      running = false;
      await done;
    },
  };
}

function loadSummary(load: LoadResult) {
  return {
    commandsPerSecond: Math.round(load.latencies.length / load.seconds),
    p99Ms: round(quantile(load.latencies, 0.99)),
    errors: load.errors,
    firstError: load.firstError,
  };
}

/**
 * (i) Sustained saturation: POST + DELETE /api/cart at the bench's concurrency for
 * `seconds`, the cart projection's lag sampled every second and summarised per minute (per
 * tenth of the run when shorter than five minutes); bounded when the last slice's p99 is within
 * twice the first's. (ii) Catch-up under that load: the projector is stopped for
 * `stoppedSeconds` while the writes go on, started again, and timed from its restart until the
 * cart projection has reached the stream position of the restart.
 */
export async function sustainedSaturation(ctx: PhaseContext, options: SaturationOptions) {
  const { api, concurrency } = ctx;
  const store = await ctx.openLiveStore();
  const write = (w: number, i: number) => addAndRemove(api, userOf(ctx, w, i));

  ctx.log(
    `(i) sustained saturation: POST + DELETE /api/cart, concurrency ${concurrency}, ${options.seconds} s`,
  );
  const lag = sampleLag(ctx, store, 1000);
  const saturated = await closedLoop(concurrency, options.seconds, write);
  await lag.stop();
  const sliceSeconds = options.seconds >= 300 ? 60 : options.seconds / 10;
  const slices: { fromSecond: number; p50: number; p99: number; max: number }[] = [];
  for (let from = 0; from < options.seconds; from += sliceSeconds) {
    const values = lag.samples.filter((s) => s.at >= from && s.at < from + sliceSeconds).map((s) => s.events);
    if (values.length === 0) continue;
    slices.push({
      fromSecond: round(from, 1),
      p50: quantile(values, 0.5),
      p99: quantile(values, 0.99),
      max: Math.max(...values),
    });
  }
  const first = slices[0];
  const last = slices.at(-1);
  const lastToFirst = first && last ? round(last.p99 / Math.max(1, first.p99)) : null;

  ctx.log(`(ii) catch-up: the projector stopped for ${options.stoppedSeconds} s under the same load`);
  const catchUpLag = sampleLag(ctx, store, 1000);
  let lagAtRestart: number;
  let caughtUpSeconds: number | null = null;
  let endLoadAt = Infinity;
  const under = closedLoop(
    concurrency,
    options.stoppedSeconds + 90,
    write,
    () => performance.now() > endLoadAt,
  );
  try {
    await sleep(5000);
    await ctx.stack.restartProjector(options.stoppedSeconds * 1000);
    const restartedAt = performance.now();
    const target = await store.lastStreamSequence();
    lagAtRestart = await cartLag(ctx, store);
    // Caught up: every cart_items checkpoint at or past the stream position of the restart.
    while (performance.now() - restartedAt < 80_000) {
      if ((await cartCheckpoint(ctx)) >= target) {
        caughtUpSeconds = round((performance.now() - restartedAt) / 1000);
        break;
      }
      await sleep(100);
    }
  } finally {
    // Five seconds of the load past the catch-up, for the lag samples after it.
    endLoadAt = performance.now() + 5000;
  }
  const during = await under;
  await catchUpLag.stop();
  ctx.log(`catch-up: ${lagAtRestart} events behind at restart, caught up in ${caughtUpSeconds ?? '>80'} s`);
  return {
    saturation: {
      seconds: options.seconds,
      ...loadSummary(saturated),
      lagEvents: slices,
      lastToFirstP99: lastToFirst,
      bounded: lastToFirst !== null && lastToFirst <= 2,
    },
    catchUp: {
      stoppedSeconds: options.stoppedSeconds,
      lagAtRestartEvents: lagAtRestart,
      caughtUpSeconds,
      eventsPerSecond: caughtUpSeconds ? Math.round(lagAtRestart / caughtUpSeconds) : null,
      load: loadSummary(during),
      lagEvents: catchUpLag.samples.filter((_, i) => i % 5 === 0),
    },
  };
}
