import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Attributes a V8 CPU profile's samples to the layers of the gateway's request path, so a
 * command's and a read's CPU can be read layer by layer (docs/operations.md, The benchmark).
 *
 * A sample belongs to the innermost frame of its stack that a layer claims (by the frame's file,
 * or for native frames its function): zod called by a Nest pipe is validation, a Postgres query
 * issued by the read-model cache is the read model, `JSON.parse` inside Fastify's body parser is
 * HTTP. Frames no layer claims (Node's events, promises, async hooks) are transparent: the sample
 * goes to the nearest claimed frame around them, or to `other` when there is none.
 */

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface LayerRule {
  layer: string;
  /** Matched against the frame's script URL (a path or `node:` name). */
  url?: RegExp;
  /** Matched against the function name of frames without a script (V8 natives). */
  native?: RegExp;
  /** With `url`: the frame's function must match too (one function of a file that is otherwise another layer). */
  fn?: RegExp;
}

const dir = (path: string) => new RegExp(`/${path}/(src|dist)/`);
const modules = (...names: string[]) => new RegExp(`/node_modules/(${names.join('|')})/`);

export const GC_LAYER = 'garbage collection';
export const OTHER_LAYER = 'other';
/** V8's own work outside any JavaScript frame (compilation, the microtask queue's machinery). */
export const PROGRAM_LAYER = 'V8 outside JavaScript';

/**
 * The gateway's layers, most specific first: a frame takes the first rule that matches it. The
 * order of the layers is the order of the table.
 */
export const gatewayLayers: readonly LayerRule[] = [
  {
    layer: 'socket writes (system calls)',
    native: /^(writev|writeBuffer|write(Utf8|Latin1|Ascii|Ucs2)String)$/,
  },
  { layer: 'logging', url: dir('libs/logging') },
  { layer: 'logging', url: modules('pino', 'pino-std-serializers', 'sonic-boom', 'fast-redact') },
  { layer: 'metrics and tracing', url: dir('libs/(metrics|tracing)') },
  { layer: 'metrics and tracing', url: modules('prom-client', '@opentelemetry', 'tdigest', 'bintrees') },
  { layer: 'guards and JWT verification', url: /\/services\/gateway\/(src|dist)\/auth\// },
  { layer: 'guards and JWT verification', url: modules('jose', '@nestjs/throttler') },
  { layer: 'guards and JWT verification', url: /\/libs\/redis\/(src|dist)\/rate-limiter\./ },
  { layer: 'validation', url: modules('zod') },
  {
    layer: 'validation',
    url: /\/libs\/http\/(src|dist)\/(validated|api-route|api-schema|describe-zod-error|storable-text)\./,
  },
  { layer: 'read-your-writes wait', url: /\/services\/gateway\/(src|dist)\/consistency\// },
  {
    layer: 'read-your-writes wait',
    url: /\/libs\/projections\/(src|dist)\/(read-model-positions|position-tracker|consistency-token)\./,
  },
  { layer: 'append and its ack', url: dir('libs/eventstore') },
  { layer: 'append and its ack', url: modules('nats', '@nats-io/[^/]+') },
  { layer: 'decider and aggregate cache', url: dir('libs/(commands|domain|contracts)') },
  { layer: 'read model query and cache', url: dir('libs/(read-models|redis|db)') },
  { layer: 'read model query and cache', url: /\/services\/gateway\/(src|dist)\/cart\/get-cart\.query\./ },
  {
    layer: 'Postgres and Redis clients',
    url: modules(
      'kysely',
      'pg',
      'pg-protocol',
      'pg-pool',
      'pg-types',
      'postgres-array',
      'ioredis',
      'redis-parser',
    ),
  },
  { layer: 'serialization', url: modules('fast-json-stringify', 'fast-uri', 'secure-json-parse') },
  // Fastify's reply serializer (JSON.stringify of the answer); the rest of reply.js is HTTP.
  { layer: 'serialization', url: /\/node_modules\/fastify\/lib\/reply\.js$/, fn: /^serialize$/ },
  { layer: 'serialization', native: /^(stringify|parse|JSONStringify|JSONParse)$/ },
  {
    layer: 'Nest (pipeline, interceptors, CQRS)',
    url: modules('@nestjs/core', '@nestjs/common', '@nestjs/cqrs', 'rxjs'),
  },
  { layer: 'Nest (pipeline, interceptors, CQRS)', url: modules('@nestjs/platform-fastify') },
  { layer: 'cart route (controller, service)', url: /\/services\/gateway\/(src|dist)\/cart\// },
  {
    layer: 'HTTP parsing and routing',
    url: modules(
      'fastify',
      'find-my-way',
      '@fastify/[^/]+',
      'light-my-request',
      'avvio',
      'cookie',
      'fast-querystring',
      'content-type',
      'fastify-plugin',
      'vary',
      'toad-cache',
    ),
  },
  {
    layer: 'HTTP parsing and routing',
    url: /^node:_http_|^node:http$|\/services\/gateway\/(src|dist)\/http\//,
  },
  { layer: 'HTTP parsing and routing', url: dir('libs/http') },
  { layer: 'sockets and streams', url: /^node:(net|stream|internal\/(streams|stream_base_commons|net))/ },
  {
    layer: 'promises, async context and timers',
    url: /^node:(async_hooks|internal\/(async_hooks|process\/task_queues|process\/promises|timers|abort_controller|event_target|per_context\/domexception))/,
  },
  { layer: 'promises, async context and timers', native: /^runMicrotasks$/ },
];

/** The profiler's own work (writing a profile out) is no part of the service's cost. */
const profilerItself = /\/bench\/cpu-profile\.cjs$/;

/** The layer of one frame, or undefined when no rule claims it (the frame is transparent). */
function frameLayer(rules: readonly LayerRule[], frame: ProfileNode['callFrame']): string | undefined {
  for (const rule of rules) {
    if (rule.url && frame.url && rule.url.test(frame.url) && (!rule.fn || rule.fn.test(frame.functionName)))
      return rule.layer;
    if (rule.native && !frame.url && rule.native.test(frame.functionName)) return rule.layer;
  }
  return undefined;
}

/** Busy milliseconds of the profile per layer (idle time left out), in the rules' order, then GC and the rest. */
export function layerTimes(
  profile: CpuProfile,
  rules: readonly LayerRule[] = gatewayLayers,
): Map<string, number> {
  const parents = new Map<number, ProfileNode>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parents.set(child, node);
  }
  const layers = new Map<number, string | null>();
  const layerOf = (node: ProfileNode): string | null => {
    const known = layers.get(node.id);
    if (known !== undefined) return known;
    const { functionName } = node.callFrame;
    let layer: string | null;
    if (functionName === '(idle)' || profilerItself.test(node.callFrame.url)) layer = null;
    else if (functionName === '(garbage collector)') layer = GC_LAYER;
    else if (functionName === '(program)') layer = PROGRAM_LAYER;
    else {
      const parent = parents.get(node.id);
      layer = frameLayer(rules, node.callFrame) ?? (parent ? layerOf(parent) : OTHER_LAYER);
    }
    layers.set(node.id, layer);
    return layer;
  };
  const times = new Map<string, number>(
    [...new Set(rules.map((r) => r.layer)), GC_LAYER, PROGRAM_LAYER, OTHER_LAYER].map((l) => [l, 0]),
  );
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const layer = node ? layerOf(node) : OTHER_LAYER;
    if (layer === null) return;
    times.set(layer, (times.get(layer) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return times;
}

/**
 * One column of the table: a profile's layer times, the units of work (commands, requests) it
 * covers, and the process CPU seconds measured over the same work. The profile's samples are
 * taken on a wall clock (a process the scheduler holds off still gets its samples, mostly in the
 * system call that woke another process), so the layers share out the measured CPU by their
 * share of the busy samples rather than taking the samples' own total.
 */
export interface LayerColumn {
  title: string;
  times: Map<string, number>;
  units: number;
  cpuSeconds: number;
}

/** A Markdown table of CPU µs per unit of work and layer, one column per profile, the totals last. */
export function layerTable(columns: readonly LayerColumn[]): string {
  const layers = [...new Set(columns.flatMap((c) => [...c.times.keys()]))];
  const busy = (c: LayerColumn) => [...c.times.values()].reduce((a, b) => a + b, 0);
  const perUnit = (c: LayerColumn, ms: number) =>
    c.units > 0 && busy(c) > 0 ? ((ms / busy(c)) * ((c.cpuSeconds * 1e6) / c.units)).toFixed(1) : '-';
  const share = (c: LayerColumn, ms: number) => (busy(c) > 0 ? `${((ms / busy(c)) * 100).toFixed(0)}%` : '-');
  const rows = [
    ['layer', ...columns.flatMap((c) => [`${c.title} µs`, 'share'])],
    ...layers.map((layer) => [
      layer,
      ...columns.flatMap((c) => [perUnit(c, c.times.get(layer) ?? 0), share(c, c.times.get(layer) ?? 0)]),
    ]),
    ['total (process CPU)', ...columns.flatMap((c) => [perUnit(c, busy(c)), '100%'])],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`;
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n');
}

/** What a run's results say of the work each gateway profile covers (see phases.ts). */
export interface RunResults {
  write?: { count: number; gatewayCpuSeconds: number };
  writeToReadable?: { commandsPerSecond: number; commands: { count: number }; gatewayCpuSeconds: number };
  read?: { cart: { count: number; gatewayCpuSeconds: number } };
}

/**
 * The gateway's per-layer table of a run of `npm run bench -- --profile` from the profiles in
 * `dir`: a cart command at saturation and at the paced rate, and a `GET /api/cart`. Null when
 * the run profiled none of them.
 */
export function gatewayLayerTable(dir: string, results: RunResults): string | null {
  const file = (name: string) => join(dir, `gateway-${name}.cpuprofile`);
  const columns: LayerColumn[] = [];
  const add = (title: string, name: string, units: number, cpuSeconds: number) => {
    if (!existsSync(file(name))) return;
    const times = layerTimes(JSON.parse(readFileSync(file(name), 'utf8')) as CpuProfile);
    columns.push({ title, times, units, cpuSeconds });
  };
  if (results.write) add('command, saturated', 'write', results.write.count, results.write.gatewayCpuSeconds);
  const paced = results.writeToReadable;
  if (paced)
    add(`command @ ${paced.commandsPerSecond}/s`, 'paced', paced.commands.count, paced.gatewayCpuSeconds);
  if (results.read)
    add('GET /api/cart', 'read-cart', results.read.cart.count, results.read.cart.gatewayCpuSeconds);
  return columns.length > 0 ? layerTable(columns) : null;
}
