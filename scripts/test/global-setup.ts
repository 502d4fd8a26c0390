import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * One database per test run, so concurrent runs on the same machine never share rows.
 * Test files further isolate themselves with their own schema, stream and key prefix
 * (see @shop/testing).
 */
export default async function setup(): Promise<() => Promise<void>> {
  const runId = process.env.TEST_RUN_ID ?? `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const database = `shop_test_${runId}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();

  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  process.env.TEST_RUN_ID = runId;
  process.env.DATABASE_URL = url.toString();
  process.env.NODE_ENV = 'test';
  process.env.LOG_LEVEL ??= 'silent';

  return async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await client.end();
  };
}
