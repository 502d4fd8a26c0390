import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { Kysely } from 'kysely';
import { createDatabase, ensureDatabase } from '@shop/db';
import { connectNats } from '@shop/eventstore';
import { benchNames } from './bench-stack';
import { APPEND_SLICES, measureEncryptionCost } from './encryption-cost';

/**
 * `npm run bench:encryption -- [--users N] [--rounds N] [--slices N]`: the cost of sealing personal fields on
 * the write path and on rebuild, without the rest of the bench (no services are started).
 * Writes bench/results/<timestamp>-encryption.json.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string, fallback: number) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/shop';
  await ensureDatabase(databaseUrl);
  const nc = await connectNats(process.env.NATS_URL ?? 'nats://127.0.0.1:4222', 'bench-encryption');
  const database = createDatabase(databaseUrl, { max: 8, applicationName: 'bench-encryption' });
  const startedAt = new Date();
  const loadBefore = loadavg();
  try {
    const result = await measureEncryptionCost({
      nc,
      db: database.db as Kysely<unknown>,
      name: `bench_${benchNames().runId}_enc`,
      users: option('users', 1000),
      rounds: option('rounds', 3),
      slices: option('slices', APPEND_SLICES),
      log: (line) => process.stderr.write(`${line}\n`),
    });
    const output = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        node: process.version,
        loadAverageBefore: loadBefore,
        loadAverageAfter: loadavg(),
      },
      results: { encryption: result },
    };
    const dir = resolve(__dirname, 'results');
    mkdirSync(dir, { recursive: true });
    const file = resolve(dir, `${startedAt.toISOString().replace(/[:.]/g, '-')}-encryption.json`);
    writeFileSync(file, `${JSON.stringify(output, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\nresults: ${file}\n`);
  } finally {
    await database.close();
    await nc.drain();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
