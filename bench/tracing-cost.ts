import { startTraceCollector } from '@shop/tracing';
import { ApiClient } from './api-client';
import { BenchNames, BenchStack, startBenchStack } from './bench-stack';
import { fixedRate } from './load';
import { cpuSeconds, scrape } from './scrape';
import { benchProduct, BenchUser, onboardUsers } from './users';

interface Side {
  stack: BenchStack;
  api: ApiClient;
  users: BenchUser[];
}

export interface TracingCostOptions {
  /** The stack of the other phases: tracing off, as it runs unless an exporter is configured. */
  untraced: Side;
  /** Names of the traced stacks' own streams and schemas (cleaned up by the caller). */
  names: Record<(typeof traced)[number], BenchNames>;
  base: Record<string, string | undefined>;
  settings: Record<string, string>;
  compiled: boolean;
  /** Cart operations (a POST and a DELETE each) per second offered to each stack. */
  perSecond: number;
  rounds: number;
  sliceSeconds: number;
  log(line: string): void;
}

/** Gateway and projector CPU seconds per cart command (POST or DELETE) over one slice at a fixed rate. */
async function slice(side: Side, perSecond: number, seconds: number) {
  const scrapeBoth = () =>
    Promise.all([scrape(side.stack.gatewayMetricsUrl), scrape(side.stack.projectorUrl)]);
  const [gw0, pr0] = await scrapeBoth();
  const load = await fixedRate(perSecond, seconds, async (n) => {
    const user = side.users[n % side.users.length]!;
    const added = await side.api.expect(201, 'POST', '/api/cart', { jar: user.jar, body: benchProduct() });
    const id = (added.body as { id: string }).id;
    const removed = await side.api.expect(204, 'DELETE', `/api/cart/${id}`, { jar: user.jar });
    return [added.ms, removed.ms];
  });
  const [gw1, pr1] = await scrapeBoth();
  return {
    commands: load.latencies.length,
    errors: load.errors,
    cpu: cpuSeconds(gw0, gw1) + cpuSeconds(pr0, pr1),
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const variants = ['untraced', 'twin', 'every', 'sampled', 'queries'] as const;
const traced = ['twin', 'every', 'sampled', 'queries'] as const;
type Variant = (typeof variants)[number];

/**
 * What tracing costs a command. Four more stacks run beside the untraced one: its twin (also
 * untraced: the difference between two identical stacks is this shared machine's noise and
 * bias, the floor under the other figures), one exporting every span over OTLP to a collector in
 * this process with the default instrumentations, one a tenth of the traces
 * (OTEL_TRACES_SAMPLER=parentbased_traceidratio, OTEL_TRACES_SAMPLER_ARG=0.1), and one exporting
 * every span with the query instrumentations too (pg, ioredis). They take turns under the same fixed rate of cart commands, in short
 * slices whose order rotates each round, so the drift of the machine falls on each alike; a fixed
 * rate (not a closed loop) keeps the projector's batches alike too. Each round gives a stack's
 * extra CPU per command in percent of the untraced one's; the median of the rounds is the figure.
 */
export async function measureTracingCost(options: TracingCostOptions) {
  const { untraced, perSecond, rounds, sliceSeconds, log } = options;
  const collector = await startTraceCollector({ port: 0, keep: 20 });
  const sides: Partial<Record<Variant, Side>> = { untraced };
  const start = async (names: BenchNames, tracing: Record<string, string>) => {
    const stack = await startBenchStack(
      names,
      options.base,
      { ...options.settings, ...tracing },
      {},
      options.compiled,
    );
    const api = new ApiClient(stack.gatewayUrl, 16);
    const side = { stack, api, users: [] as BenchUser[] };
    side.users = await onboardUsers(api, stack.provider, untraced.users.length, 16, names.runId);
    return side;
  };
  try {
    log(
      'tracing cost: starting an untraced twin, a stack exporting every span, one a tenth of them, and one with query spans too',
    );
    sides.twin = await start(options.names.twin, {});
    sides.every = await start(options.names.every, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url });
    sides.sampled = await start(options.names.sampled, {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    });
    sides.queries = await start(options.names.queries, {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,undici,pg,ioredis',
    });
    for (const variant of variants) await slice(sides[variant]!, perSecond, 3);
    const overheads = Object.fromEntries(traced.map((v) => [v, [] as number[]])) as Record<
      (typeof traced)[number],
      number[]
    >;
    const totals = Object.fromEntries(variants.map((v) => [v, { commands: 0, cpu: 0, errors: 0 }])) as Record<
      Variant,
      { commands: number; cpu: number; errors: number }
    >;
    for (let round = 0; round < rounds; round++) {
      const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
      const perCommand: Partial<Record<Variant, number>> = {};
      for (const variant of order) {
        const measured = await slice(sides[variant]!, perSecond, sliceSeconds);
        perCommand[variant] = measured.cpu / measured.commands;
        totals[variant].commands += measured.commands;
        totals[variant].cpu += measured.cpu;
        totals[variant].errors += measured.errors;
      }
      for (const variant of traced) {
        overheads[variant].push((perCommand[variant]! / perCommand.untraced! - 1) * 100);
      }
      log(
        `tracing cost: round ${round + 1}/${rounds}: CPU ms per command ${variants
          .map((v) => `${v} ${(perCommand[v]! * 1000).toFixed(3)}`)
          .join(', ')}`,
      );
    }
    const cpuMsPerCommand = (variant: Variant) =>
      Math.round((totals[variant].cpu / totals[variant].commands) * 1e5) / 100;
    const percent = (values: number[]) => Math.round(median(values) * 10) / 10;
    return {
      rounds,
      sliceSeconds,
      perSecond,
      cpuMsPerCommand: Object.fromEntries(variants.map((v) => [v, cpuMsPerCommand(v)])),
      overheadPercentPerRound: Object.fromEntries(
        traced.map((v) => [v, overheads[v].map((o) => Math.round(o * 10) / 10)]),
      ),
      medianOverheadPercent: Object.fromEntries(traced.map((v) => [v, percent(overheads[v])])),
      tracesCollected: collector.traces().size,
      errors: variants.reduce((sum, v) => sum + totals[v].errors, 0),
    };
  } finally {
    for (const variant of traced) {
      await sides[variant]?.api.close();
      await sides[variant]?.stack.stop();
    }
    await collector.close();
  }
}
