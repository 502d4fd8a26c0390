import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Adds up the figures every reliability test file wrote to test-output/reliability/ in its
 * last run: `node -r @swc-node/register test/reliability/report.ts` after
 * `npx vitest run test/reliability`.
 */
const directory = resolve(__dirname, '../../test-output/reliability');
const keys = [
  'faultsSurvived',
  'requestsSent',
  'badInputsTried',
  'attacksTried',
  'eventsLost',
  'invariantsBroken',
] as const;

if (!existsSync(directory)) {
  process.stderr.write(`no figures in ${directory}: run npx vitest run test/reliability first\n`);
  process.exit(1);
}
const files = readdirSync(directory)
  .filter((name) => name.endsWith('.json'))
  .map((name) => JSON.parse(readFileSync(resolve(directory, name), 'utf8')) as Record<string, unknown>);
const totals = Object.fromEntries(keys.map((key) => [key, 0])) as Record<(typeof keys)[number], number>;
const rows = files.map((file) => {
  for (const key of keys) totals[key] += Number(file[key] ?? 0);
  return [String(file.file), ...keys.map((key) => String(file[key] ?? 0))];
});
const header = ['file', ...keys];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
const out = [
  line(header),
  line(widths.map((w) => '-'.repeat(w))),
  ...rows.map(line),
  line(['total', ...keys.map((key) => String(totals[key]))]),
];
const soak = files.find((f) => f.file === 'soak');
if (soak) {
  out.push(
    '',
    `soak: ${soak.seconds} s at ${soak.achievedRps} req/s, ${soak.requests} requests, ${soak.errors} errors, ` +
      `p99 ${soak.p99Ms} ms, gateway RSS ${soak.rssFirstMb} -> ${soak.rssLastMb} MB ` +
      `(${soak.rssGrowthMbPerMin} MB/min; heap floor ${soak.heapFloorGrowthMbPerMin} MB/min), ` +
      `max lag ${soak.maxLag}, lag zero ${soak.lagZeroAfterMs} ms after the load`,
  );
}
process.stdout.write(`${out.join('\n')}\n`);
if (totals.eventsLost > 0 || totals.invariantsBroken > 0) process.exit(2);
