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
  return `${file} (${(total / 1000).toFixed(1)} s sampled)\n by package:\n${list(packages)}\n by function:\n${list(functions)}\n`;
}

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: profile-summary.ts <directory of .cpuprofile files>\n');
  process.exit(64);
}
for (const name of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  process.stdout.write(`${summarize(join(dir, name), 25)}\n`);
}
