import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `node -r @swc-node/register bench/profile-summary.ts <dir>`: self time per package and per
 * function of every .cpuprofile in <dir> (as `npm run bench -- --profile` writes them).
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
  if (!url) return '(native / idle / gc)';
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

function summarize(file: string, top: number): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, i) =>
    selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000),
  );
  const total = [...selfMs.values()].reduce((a, b) => a + b, 0);
  const packages = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const pkg = packageOf(url);
    packages.set(pkg, (packages.get(pkg) ?? 0) + ms);
    const name = `${functionName || '(anonymous)'} ${pkg}:${lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
  }
  const list = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => `  ${((ms / total) * 100).toFixed(1).padStart(5)}%  ${name}`)
      .join('\n');
  const idleMs = [...functions]
    .filter(([name]) => name.startsWith('(idle) '))
    .reduce((a, [, ms]) => a + ms, 0);
  const busyMs = total - idleMs;
  const writesMs = [...functions]
    .filter(([name]) => socketWrites.test(name))
    .reduce((a, [, ms]) => a + ms, 0);
  const share = busyMs > 0 ? ((writesMs / busyMs) * 100).toFixed(1) : '0.0';
  return (
    `${file} (${(total / 1000).toFixed(1)} s sampled, ${(busyMs / 1000).toFixed(2)} s busy; ` +
    `socket writes ${share}% of busy)\n by package:\n${list(packages)}\n by function:\n${list(functions)}\n`
  );
}

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: profile-summary.ts <directory of .cpuprofile files>\n');
  process.exit(64);
}
for (const name of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  process.stdout.write(`${summarize(join(dir, name), 25)}\n`);
}
