import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gatewayLayerTable } from './profile-layers';

/**
 * `node -r @swc-node/register bench/profile-summary.ts <dir | results.json>`.
 *
 * Given a directory: self time per package and per function of every .cpuprofile in it, as
 * shares of the busy (not idle) time.
 *
 * Given a results file of `npm run bench -- --profile`: the profiles of that run per unit of
 * work (CPU µs per command, request or event), so a missed target can be read off the work that
 * makes it: light load against saturation per command for each service, a read per request, a
 * rebuild per event; and the gateway's CPU per command and per cart read layer by layer
 * (profile-layers.ts).
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function packageOf(url: string): string {
  if (!url) return '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const [scope, name] = url.slice(modules + 'node_modules/'.length).split('/');
    return scope!.startsWith('@') ? `${scope}/${name}` : scope!;
  }
  if (url.startsWith('node:')) return 'node core';
  const ours = /\/(libs|services|infra)\/([^/]+)\//.exec(url);
  return ours ? `${ours[1]}/${ours[2]}` : url;
}

/**
 * Node's native socket writes (each one a system call): at a light load every command sends its
 * own, under load many messages share one, which is what the per-command CPU ratio is made of.
 */
const socketWrites = /^(writev|writeBuffer|write(Utf8|Latin1|Ascii|Ucs2)String) \(native/;

/** Where busy time went, in ms: by package (GC, socket writes and other native work apart) and by function. */
interface BusyTime {
  busyMs: number;
  packages: Map<string, number>;
  functions: Map<string, number>;
}

function busyTime(file: string): BusyTime {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, i) =>
    selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000),
  );
  const packages = new Map<string, number>();
  const functions = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
  let busyMs = 0;
  for (const [id, ms] of selfMs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    busyMs += ms;
    const pkg = packageOf(url);
    const name = `${functionName || '(anonymous)'} ${pkg}${url ? `:${lineNumber + 1}` : ''}`;
    add(functions, name, ms);
    const kind =
      functionName === '(garbage collector)'
        ? '(garbage collector)'
        : socketWrites.test(name)
          ? '(socket writes)'
          : pkg;
    add(packages, kind, ms);
  }
  return { busyMs, packages, functions };
}

const top = (map: Map<string, number>, n: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);

function summarize(file: string, n: number): string {
  const { busyMs, packages, functions } = busyTime(file);
  const list = (map: Map<string, number>) =>
    top(map, n)
      .map(([name, ms]) => `  ${((ms / busyMs) * 100).toFixed(1).padStart(5)}%  ${name}`)
      .join('\n');
  return `${file} (${(busyMs / 1000).toFixed(2)} s busy)\n by package:\n${list(packages)}\n by function:\n${list(functions)}\n`;
}

/** Busy time of one profile per unit of work, in µs. */
function perUnit(file: string, units: number) {
  const { busyMs, packages, functions } = busyTime(file);
  const scale = (map: Map<string, number>) =>
    new Map([...map].map(([name, ms]) => [name, (ms * 1000) / units]));
  return { total: (busyMs * 1000) / units, packages: scale(packages), functions: scale(functions) };
}

const us = (value: number) => value.toFixed(1).padStart(8);

/** The costs of two profiles per unit side by side, largest difference first. */
function compare(
  title: string,
  [aLabel, a]: [string, ReturnType<typeof perUnit>],
  [bLabel, b]: [string, ReturnType<typeof perUnit>],
  n: number,
): string {
  const rows = (x: Map<string, number>, y: Map<string, number>) =>
    [...new Set([...x.keys(), ...y.keys()])]
      .map((name) => [name, x.get(name) ?? 0, y.get(name) ?? 0] as const)
      .sort((p, q) => Math.abs(q[2] - q[1]) - Math.abs(p[2] - p[1]))
      .slice(0, n)
      .map(([name, x, y]) => `  ${us(x)} ${us(y)} ${us(y - x)}  ${name}`)
      .join('\n');
  const head = `  ${aLabel.padStart(8)} ${bLabel.padStart(8)} ${'diff'.padStart(8)}`;
  return [
    `${title}: busy CPU µs per command, ${aLabel} ${a.total.toFixed(0)} vs ${bLabel} ${b.total.toFixed(0)} (${(b.total / a.total).toFixed(2)}x)`,
    ' by package:',
    head,
    rows(a.packages, b.packages),
    ' by function:',
    head,
    rows(a.functions, b.functions),
    '',
  ].join('\n');
}

function single(title: string, unit: string, cost: ReturnType<typeof perUnit>, n: number): string {
  const list = (map: Map<string, number>) =>
    top(map, n)
      .map(([name, value]) => `  ${us(value)}  ${name}`)
      .join('\n');
  return `${title}: busy CPU µs per ${unit} ${cost.total.toFixed(1)}\n by package:\n${list(cost.packages)}\n by function:\n${list(cost.functions)}\n`;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- reads back the results object run.ts wrote */
function perUnitReport(resultsFile: string, n: number): string {
  const run = JSON.parse(readFileSync(resultsFile, 'utf8')) as { profiles?: string; results: any };
  const dir = run.profiles;
  if (!dir) throw new Error(`${resultsFile} was not run with --profile`);
  const r = run.results;
  const file = (name: string) => join(dir, `${name}.cpuprofile`);
  const have = (...names: string[]) => names.every((name) => existsSync(file(name)));
  const out: string[] = [];
  const paced = r.writeToReadable;
  for (const service of ['gateway', 'projector']) {
    if (!r.write || !paced || !have(`${service}-write`, `${service}-paced`)) continue;
    out.push(
      compare(
        `${service}, saturated write vs ${paced.commandsPerSecond} commands/s`,
        ['saturated', perUnit(file(`${service}-write`), r.write.count)],
        [`${paced.commandsPerSecond}/s`, perUnit(file(`${service}-paced`), paced.commands.count)],
        n,
      ),
    );
  }
  for (const route of ['cart', 'orders']) {
    if (r.read && have(`gateway-read-${route}`))
      out.push(
        single(
          `gateway, GET /api/${route}`,
          'request',
          perUnit(file(`gateway-read-${route}`), r.read[route].count),
          n,
        ),
      );
  }
  const layers = gatewayLayerTable(dir, r);
  if (layers) out.push(`gateway CPU per unit of work, by layer:\n${layers}\n`);
  const rebuilt = r.rebuild?.readModel?.events;
  if (rebuilt && have('bench-rebuild'))
    out.push(
      single(
        `rebuild of ${rebuilt} events (the bench process)`,
        'event',
        perUnit(file('bench-rebuild'), rebuilt),
        n,
      ),
    );
  return out.join('\n');
}

const target = process.argv[2];
if (!target) {
  process.stderr.write('usage: profile-summary.ts <directory of .cpuprofile files | results.json>\n');
  process.exit(64);
}
if (target.endsWith('.json')) process.stdout.write(perUnitReport(target, 25));
else
  for (const name of readdirSync(target).filter((f) => f.endsWith('.cpuprofile')))
    process.stdout.write(`${summarize(join(target, name), 25)}\n`);
