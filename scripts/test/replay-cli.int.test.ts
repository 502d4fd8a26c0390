import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { compareTables, rebuildProjections } from '@shop/projections';
import { readModelMigrations, readModelProjections } from '@shop/read-models';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { writeUserHistory } from '../../libs/projections/test/fixtures';

const root = resolve(__dirname, '../..');
const env = testEnvironment('replaycli');
const tables = readModelProjections().flatMap((p) => p.tables);
let t: TestEventStore;
let database: DatabaseHandle;
/** The stream's end after the first burst of events, and a time between the two bursts. */
let firstBurstEnd: number;
let betweenBursts: Date;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function replay(...args: string[]): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', resolve(root, 'scripts/replay.ts'), ...args],
      {
        cwd: root,
        env: { ...process.env, ...env.env, SWC_NODE_PROJECT: resolve(root, 'tsconfig.base.json') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', fail);
    child.once('exit', (code) => done({ code, stdout, stderr }));
  });
}

async function schemasLike(prefix: string): Promise<string[]> {
  const { rows } = await sql<{ nspname: string }>`
    SELECT nspname FROM pg_namespace WHERE starts_with(nspname, ${prefix}) ORDER BY nspname`.execute(
    database.db,
  );
  return rows.map((r) => r.nspname);
}

beforeAll(async () => {
  t = await openTestEventStore(env);
  database = createDatabase(env.databaseUrl, { max: 4 });
  await writeUserHistory(t.store, 60, 2);
  firstBurstEnd = await t.store.lastStreamSequence();
  betweenBursts = new Date();
  await sleep(30);
  await writeUserHistory(t.store, 40, 1);
  // The live read model, as the projector leaves it at the stream's end.
  await rebuildProjections({
    store: t.store,
    db: database.db,
    schema: env.schema,
    projections: readModelProjections(),
    migrations: readModelMigrations,
  });
});
afterAll(async () => {
  await t.close();
  await database.close();
});

describe('npm run replay', () => {
  it('prints its usage, and refuses bad arguments with exit code 64', async () => {
    const help = await replay('--help');
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: npm run replay -- <command> [options]');

    const runs = await Promise.all([
      replay('frobnicate'),
      replay('at'),
      replay('verify', '--projection', 'nope'),
      replay('rebuild', '--until', '5'),
      replay('at', '--until', 'yesterday'),
    ]);
    expect(runs.map((r) => r.code)).toEqual([64, 64, 64, 64, 64]);
    expect(runs.map((r) => r.stderr.split('\n')[0])).toEqual([
      'replay: unknown command frobnicate',
      'replay: at needs --until <sequence|time>',
      `replay: unknown projection nope (known: ${readModelProjections()
        .map((p) => p.name)
        .join(', ')})`,
      'replay: --until applies to at only',
      'replay: --until must be a stream sequence or an ISO-8601 time with a zone, not yesterday',
    ]);
  }, 60_000);

  it('verifies the live read model and drops its scratch schema', async () => {
    const run = await replay('verify');
    expect(run.code, run.stderr).toBe(0);
    for (const table of tables) expect(run.stdout).toMatch(new RegExp(`^${table}\\s.*\\sequal$`, 'm'));
    expect(run.stdout).toMatch(/^total\s+[\d,]+\s+[\d,]+\s/m);
    expect(run.stdout).toContain('Verified: the live read model equals a rebuild from the stream.');
    expect(await schemasLike(`${env.schema}_verify_`)).toEqual([]);
  }, 60_000);

  it('names a tampered table, refuses to swap over it, and swaps the rebuild in when forced', async () => {
    await sql`UPDATE ${sql.table(`${env.schema}.users`)} SET display_name = 'tampered'
               WHERE user_id = (SELECT min(user_id::text)::uuid FROM ${sql.table(`${env.schema}.users`)})`.execute(
      database.db,
    );
    const verify = await replay('verify');
    expect(verify.code, verify.stderr).toBe(1);
    expect(verify.stdout).toMatch(/^users\s.*\sDIFFERS$/m);
    expect(verify.stdout).toMatch(/^user_memories\s.*\sequal$/m);
    expect(verify.stdout).toContain('Tables differ: users.');
    expect(await schemasLike(`${env.schema}_verify_`)).toEqual([]);

    const refused = await replay('rebuild', '--projection', 'users');
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stdout).toContain('Tables differ (users): nothing swapped');
    const [kept] = await schemasLike(`${env.schema}_rebuild_`);
    expect(refused.stdout).toContain(`kept for inspection in ${kept}`);
    await sql`DROP SCHEMA ${sql.id(kept!)} CASCADE`.execute(database.db);

    const forced = await replay('rebuild', '--projection', 'users', '--force', '--drop-old');
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain('Swapped despite differences (--force): users.');
    expect(forced.stdout).toContain(`Swapped the tables of users into ${env.schema}`);
    expect(await schemasLike(`${env.schema}_old_`)).toEqual([]);
    const repaired = await replay('verify');
    expect(repaired.code, repaired.stderr).toBe(0);
  }, 90_000);

  it('swaps in a rebuild of the whole schema and keeps the old one for inspection', async () => {
    const run = await replay('rebuild', '--batch-size', '50');
    expect(run.code, run.stderr).toBe(0);
    const [old] = await schemasLike(`${env.schema}_old_`);
    expect(run.stdout).toMatch(new RegExp(`Swapped schema ${env.schema}_rebuild_\\w+ in as ${env.schema}; `));
    expect(run.stdout).toContain(`the previous one is now ${old}.`);
    expect(run.stdout).toContain(`DROP SCHEMA ${old} CASCADE;`);
    const same = await compareTables(database.db, old!, env.schema, tables);
    expect(same.filter((c) => !c.equal)).toEqual([]);
    expect(same.find((c) => c.table === 'users')!.live.rows).toBe(100);
  }, 60_000);

  it('rebuilds the read model as it was at a stream sequence, beside the live one', async () => {
    const run = await replay('at', '--until', String(firstBurstEnd));
    expect(run.code, run.stderr).toBe(0);
    const schema = `${env.schema}_at_${firstBurstEnd}`;
    expect(run.stdout).toContain(
      `The read model at stream sequence ${firstBurstEnd} is in schema ${schema}.`,
    );
    expect(run.stdout).toMatch(/^users\s+60\s/m);

    const stopped = `${env.schema}_stopped`;
    await rebuildProjections({
      store: t.store,
      db: database.db,
      schema: stopped,
      projections: readModelProjections(),
      migrations: readModelMigrations,
      untilSequence: firstBurstEnd,
    });
    const sameAsStopped = await compareTables(database.db, stopped, schema, tables);
    expect(sameAsStopped.filter((c) => !c.equal)).toEqual([]);
    const againstLive = await compareTables(database.db, env.schema, schema, tables);
    expect(againstLive.filter((c) => !c.equal).map((c) => c.table)).toEqual(['users']);
  }, 60_000);

  it('resolves --until <time> to the last sequence whose events occurred by then', async () => {
    const run = await replay('at', '--until', betweenBursts.toISOString(), '--projection', 'users');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`${betweenBursts.toISOString()} is stream sequence ${firstBurstEnd} `);
    expect(run.stdout).toContain(`is in schema ${env.schema}_at_${firstBurstEnd}.`);
  }, 60_000);
});
