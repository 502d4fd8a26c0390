import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startPrivatePostgres, type PrivatePostgres } from '../src';

/** A DATABASE_URL naming another user than postgres: the private cluster must have that role. */
describe('a private PostgreSQL for a URL of another user', () => {
  const base = mkdtempSync(join(tmpdir(), 'pg-role-'));
  // Run as root, Postgres runs as the postgres user, who must reach its folder inside this one.
  chmodSync(base, 0o755);
  let server: PrivatePostgres | undefined;
  afterAll(async () => {
    await server?.stop('fast');
    rmSync(base, { recursive: true, force: true });
  });

  const query = async (url: string, sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql)).rows as Record<string, unknown>[];
    } finally {
      await client.end();
    }
  };

  it('creates the role with its password, able to create its database, and keeps it across restarts', async () => {
    const role = { name: 'shop', password: "s3cret'quoted" };
    server = await startPrivatePostgres({ baseDir: join(base, 'postgres'), role });
    const asShop = `postgres://shop:${encodeURIComponent(role.password)}@127.0.0.1:${server.port}/postgres`;
    expect(await query(asShop, 'SELECT current_user AS who')).toEqual([{ who: 'shop' }]);
    await query(asShop, 'CREATE DATABASE shop');

    const [stored] = await query(server.url, "SELECT rolpassword FROM pg_authid WHERE rolname = 'shop'");
    expect(String(stored!.rolpassword)).toMatch(/^SCRAM-SHA-256\$/);

    // Started again on the kept cluster, with the role there already and a new password.
    await server.stop('fast');
    server = await startPrivatePostgres({
      baseDir: join(base, 'postgres'),
      port: server.port,
      role: { name: 'shop', password: 'other' },
    });
    const [changed] = await query(server.url, "SELECT rolpassword FROM pg_authid WHERE rolname = 'shop'");
    expect(changed!.rolpassword).not.toEqual(stored!.rolpassword);
    expect(
      await query(`postgres://shop:other@127.0.0.1:${server.port}/shop`, 'SELECT current_database() AS db'),
    ).toEqual([{ db: 'shop' }]);
  }, 60_000);
});
