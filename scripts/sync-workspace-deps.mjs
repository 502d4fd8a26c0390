#!/usr/bin/env node
// Declares each workspace package's @shop/* imports (src only) as dependencies, so npm
// resolution and Nx's build order match the code. `--check` fails instead of writing.
import { readdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const check = process.argv.includes('--check');
const roots = ['libs', 'services', 'infra/sandbox'];
const packages = roots.flatMap((root) =>
  existsSync(root)
    ? readdirSync(root)
        .map((d) => join(root, d))
        .filter((d) => existsSync(join(d, 'package.json')))
    : [],
);

function sources(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : /\.ts$/.test(name) ? [path] : [];
  });
}

let stale = [];
for (const dir of packages) {
  const file = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  const used = new Set();
  for (const source of sources(join(dir, 'src'))) {
    for (const match of readFileSync(source, 'utf8').matchAll(/from '(@shop\/[a-z0-9-]+)'/g)) {
      if (match[1] !== pkg.name) used.add(match[1]);
    }
  }
  const others = Object.fromEntries(
    Object.entries(pkg.dependencies ?? {}).filter(([name]) => !name.startsWith('@shop/')),
  );
  const wanted = { ...others, ...Object.fromEntries([...used].sort().map((name) => [name, '*'])) };
  const sorted = Object.fromEntries(Object.entries(wanted).sort(([a], [b]) => a.localeCompare(b)));
  if (JSON.stringify(sorted) !== JSON.stringify(pkg.dependencies ?? {})) {
    stale.push(dir);
    if (!check) {
      pkg.dependencies = sorted;
      writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
    }
  }
}
if (check && stale.length > 0) {
  console.error(
    `workspace dependencies out of date in: ${stale.join(', ')} (run node scripts/sync-workspace-deps.mjs)`,
  );
  process.exit(1);
}
console.log(stale.length ? `updated: ${stale.join(', ')}` : 'workspace dependencies up to date');
