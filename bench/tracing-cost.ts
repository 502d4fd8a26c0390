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

/** One stack each, all running at once. */
export const tracingVariants = ['untraced', 'twin', 'every', 'sampled', 'queries'] as const;
type Variant = (typeof tracingVariants)[number];
const traced = ['every', 'sampled', 'queries'] as const;

export interface TracingCostOptions {
  /** Names of each stack's own stream and schema (cleaned up by the caller). */
  names: Record<Variant, BenchNames>;
  base: Record<string, string | undefined>;
  settings: Record<string, string>;
  compiled: boolean;
  /** Users signed in on each stack. */
  users: number;
  /** Cart operations (a POST and a DELETE each) per second offered to each stack. */
  perSecond: number;
  rounds: number;
  sliceSeconds: number;
  log(line: string): void;
  /** With --profile: has `stack`'s services write what they sampled since the last mark as `label`. */
  markProfiles?(stack: BenchStack, label: string): Promise<void>;
}

interface Slice {
  commands: number;
  errors: number;
  /** Gateway and projector CPU seconds. */
  cpu: number;
  gatewayCpu: number;
}

/** Gateway and projector CPU seconds over one slice of cart commands (POST or DELETE) at a fixed rate. */
async function slice(side: Side, perSecond: number, seconds: number): Promise<Slice> {
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
    gatewayCpu: cpuSeconds(gw0, gw1),
  };
}

const round1 = (value: number) => Math.round(value * 10) / 10;
const warmUpSeconds = 60;
const msPer = (seconds: number, commands: number) => Math.round((seconds / commands) * 1e5) / 100;

/**
 * What tracing costs a command. Five stacks run side by side, each started for this phase: two
 * untraced (the difference between identical stacks is the noise floor under the other figures),
 * one exporting every span over OTLP to a collector in this process with the default
 * instrumentations, one a tenth of the traces (OTEL_TRACES_SAMPLER=parentbased_traceidratio,
 * OTEL_TRACES_SAMPLER_ARG=0.1), and one exporting every span with the query instrumentations too
 * (pg, ioredis). All take the same fixed rate of cart commands at the same time, so whatever
 * this shared machine does meanwhile falls on each alike: taking turns, the same two untraced
 * stacks differed by up to 17% from one slice to the next. The cost of a variant is its CPU per
 * command over every slice against the mean of the two untraced stacks'; each slice's figure is
 * reported too.
 */
export async function measureTracingCost(options: TracingCostOptions) {
  const { perSecond, rounds, sliceSeconds, log } = options;
  const collector = await startTraceCollector({ port: 0, keep: 20 });
  const tracing: Record<Variant, Record<string, string>> = {
    untraced: {},
    twin: {},
    every: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
    sampled: {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    },
    queries: {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'fastify,undici,pg,ioredis',
    },
  };
  const sides: Partial<Record<Variant, Side>> = {};
  try {
    log(
      'tracing cost: starting two untraced stacks, one exporting every span, one a tenth of them, and one with query spans too',
    );
    for (const variant of tracingVariants) {
      const names = options.names[variant];
      const stack = await startBenchStack(
        names,
        options.base,
        { ...options.settings, ...tracing[variant] },
        {},
        options.compiled,
      );
      const api = new ApiClient(stack.gatewayUrl, 16);
      sides[variant] = { stack, api, users: [] };
      sides[variant].users = await onboardUsers(api, stack.provider, options.users, 16, names.runId);
    }
    const all = tracingVariants.map((variant) => sides[variant]!);
    // A stack's CPU per command falls for its first minute or so (the JIT's tiers, the caches
    // filling): the stacks started first would otherwise look cheaper.
    log(`tracing cost: warming every stack up for ${warmUpSeconds} s`);
    await Promise.all(all.map((side) => slice(side, perSecond, warmUpSeconds)));
    const totals = Object.fromEntries(
      tracingVariants.map((v) => [v, { commands: 0, cpu: 0, gatewayCpu: 0, errors: 0 }]),
    ) as Record<Variant, Slice>;
    // The twin's slices against the other untraced stack; each traced stack's against both.
    const perRound = Object.fromEntries(
      (['twin', ...traced] as const).map((v) => [v, [] as number[]]),
    ) as Record<'twin' | (typeof traced)[number], number[]>;
    for (let round = 1; round <= rounds; round++) {
      for (const variant of tracingVariants)
        await options.markProfiles?.(sides[variant]!.stack, `before-tracing-${variant}-${round}`);
      const measured = await Promise.all(all.map((side) => slice(side, perSecond, sliceSeconds)));
      for (const variant of tracingVariants)
        await options.markProfiles?.(sides[variant]!.stack, `tracing-${variant}-${round}`);
      const perCommand = {} as Record<Variant, number>;
      tracingVariants.forEach((variant, i) => {
        const m = measured[i]!;
        perCommand[variant] = m.cpu / m.commands;
        for (const key of ['commands', 'cpu', 'gatewayCpu', 'errors'] as const)
          totals[variant][key] += m[key];
      });
      const untraced = (perCommand.untraced + perCommand.twin) / 2;
      perRound.twin.push(round1((perCommand.twin / perCommand.untraced - 1) * 100));
      for (const variant of traced)
        perRound[variant].push(round1((perCommand[variant] / untraced - 1) * 100));
      log(
        `tracing cost: round ${round}/${rounds}: CPU ms per command ${tracingVariants
          .map((v) => `${v} ${(perCommand[v] * 1000).toFixed(3)}`)
          .join(', ')}`,
      );
    }
    const perCommand = (v: Variant) => totals[v].cpu / totals[v].commands;
    const untraced = (perCommand('untraced') + perCommand('twin')) / 2;
    return {
      rounds,
      sliceSeconds,
      perSecond,
      cpuMsPerCommand: Object.fromEntries(
        tracingVariants.map((v) => [v, msPer(totals[v].cpu, totals[v].commands)]),
      ),
      gatewayCpuMsPerCommand: Object.fromEntries(
        tracingVariants.map((v) => [v, msPer(totals[v].gatewayCpu, totals[v].commands)]),
      ),
      /** The twin against the other untraced stack: how far two identical stacks differ. */
      noiseFloorPercent: round1((perCommand('twin') / perCommand('untraced') - 1) * 100),
      /** Each traced stack's CPU per command against the mean of the untraced two, over every slice. */
      overheadPercent: Object.fromEntries(
        traced.map((v) => [v, round1((perCommand(v) / untraced - 1) * 100)]),
      ),
      overheadPercentPerRound: perRound,
      tracesCollected: collector.traces().size,
      errors: tracingVariants.reduce((sum, v) => sum + totals[v].errors, 0),
    };
  } finally {
    for (const variant of tracingVariants) {
      await sides[variant]?.api.close();
      await sides[variant]?.stack.stop();
    }
    await collector.close();
  }
}
