import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts, spawnManaged, testEnvironment, type ManagedChild } from '@shop/testing';

/**
 * `npm start` on a machine where NATS, Postgres and Redis are installed but none is running:
 * the configured ports are ones nothing listens on, so it starts a private server of each there,
 * with its data under STACK_DATA_DIR, and stops them with the stack. The external systems are
 * named (addresses nothing listens on), so no stand-in is started and the test stays light.
 */
const root = resolve(__dirname, '..', '..');
const env = testEnvironment('startsrv');
const dataDir = mkdtempSync(join(tmpdir(), 'stack-data-'));
// Run as root, Postgres runs as the postgres user, who must reach its folder inside this one.
chmodSync(dataDir, 0o755);
let start: ManagedChild;
let ports: Record<string, number>;

const answers = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
  });

function startCommand(vars: Record<string, string>): ManagedChild {
  return spawnManaged(process.execPath, ['-r', '@swc-node/register', resolve(root, 'scripts/start.ts')], {
    cwd: root,
    env: { PATH: process.env.PATH, ...vars },
  });
}

beforeAll(async () => {
  const names = [
    'nats',
    'postgres',
    'redis',
    'gateway',
    'search',
    'analytics',
    'projector',
    'gatewayMetrics',
  ];
  const free = await freePorts(names.length + 4);
  ports = Object.fromEntries(names.map((name, i) => [name, free[i]!]));
  const nowhere = `http://127.0.0.1:${free[names.length]!}`;
  ports.traces = free[names.length + 1]!;
  ports.searchMetrics = free[names.length + 2]!;
  // Every port its own: another stack on the machine (another test's) is no neighbour.
  ports.model = free[names.length + 3]!;
  start = startCommand({
    ...env.env,
    NATS_URL: `nats://127.0.0.1:${ports.nats}`,
    // Another user than postgres, as an operator's URL names: the private cluster gets that role.
    DATABASE_URL: `postgres://shop:secret@127.0.0.1:${ports.postgres}/shop`,
    REDIS_URL: `redis://127.0.0.1:${ports.redis}`,
    STACK_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ANALYTICS_SCHEMA: `${env.schema}_analytics`,
    SEARCH_SCHEMA: `${env.schema}_search`,
    PORT: String(ports.gateway),
    SEARCH_PORT: String(ports.search),
    ANALYTICS_PORT: String(ports.analytics),
    METRICS_PORT: String(ports.projector),
    GATEWAY_METRICS_PORT: String(ports.gatewayMetrics),
    SEARCH_METRICS_PORT: String(ports.searchMetrics),
    TRACES_PORT: String(ports.traces),
    MODEL_SANDBOX_PORT: String(ports.model),
    WALLET_ENCRYPTION_KEY: 'cd'.repeat(32),
    DEPOSIT_WEBHOOK_SECRET: 'operator-deposit-secret',
    PROVIDER_API_URL: nowhere,
    PROVIDER_API_KEY: 'sk_operator',
    CHAIN_RPC_URL: nowhere,
    APIFY_API_BASE_URL: nowhere,
    APIFY_API_TOKEN: 'apify_operator',
  });
  await start.waitForOutput(/The stack is up/, 170_000);
}, 180_000);

afterAll(async () => {
  await start?.stop('SIGTERM', 20_000);
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('npm start with NATS, Postgres and Redis installed but stopped', () => {
  it('starts a private server of each on its configured port, its data under STACK_DATA_DIR, and reaches /health', async () => {
    const output = start.output();
    expect(output).toMatch(new RegExp(`started a private NATS \\(JetStream\\) on port ${ports.nats}`));
    expect(output).toMatch(new RegExp(`started a private PostgreSQL on port ${ports.postgres}`));
    expect(output).toMatch(new RegExp(`started a private Redis on port ${ports.redis}`));
    expect(existsSync(join(dataDir, 'nats', 'jetstream'))).toBe(true);
    expect(existsSync(join(dataDir, 'postgres', 'data', 'PG_VERSION'))).toBe(true);
    expect((await fetch(`http://127.0.0.1:${ports.gateway}/health`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ports.projector}/health`)).status).toBe(200);
  });

  it("gives the private cluster the URL's role and password, which the stack's database belongs to", async () => {
    const client = new pg.Client({
      connectionString: `postgres://shop:secret@127.0.0.1:${ports.postgres}/shop`,
    });
    await client.connect();
    try {
      const { rows } = await client.query(
        'SELECT current_user AS who, pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = current_database()',
      );
      expect(rows).toEqual([{ who: 'shop', owner: 'shop' }]);
      const stored = await client
        .query("SELECT rolpassword FROM pg_authid WHERE rolname = 'shop'")
        .catch((error: Error) => error);
      // Only a superuser reads pg_authid: the role is an ordinary one.
      expect(stored).toBeInstanceOf(Error);
    } finally {
      await client.end();
    }
  });

  it('keeps the last traces on its private route, one timeline per request across the services', async () => {
    const login = await fetch(`http://127.0.0.1:${ports.gateway}/api/dev/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'traced-start@example.com' }),
    });
    expect(login.status).toBe(200);
    const deadline = Date.now() + 15_000;
    let timeline: string[] = [];
    while (Date.now() < deadline) {
      const traces = (await (await fetch(`http://127.0.0.1:${ports.traces}/traces`)).json()) as {
        timeline: string[];
      }[];
      timeline = traces.find((t) => t.timeline.some((l) => l.includes('/api/dev/login')))?.timeline ?? [];
      if (timeline.some((l) => /projector: process/.test(l))) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(timeline.join('\n')).toMatch(/gateway: POST \/api\/dev\/login/);
    expect(timeline.join('\n')).toMatch(/gateway: publish .*\.user\.\*/);
    expect(timeline.join('\n')).toMatch(/projector: process/);
  });

  it('stops the servers it started with the stack', async () => {
    await start.stop('SIGTERM', 20_000);
    expect(start.output()).toMatch(/stopped the private NATS/);
    for (const port of [ports.nats!, ports.postgres!, ports.redis!]) {
      expect(await answers(port), `port ${port}`).toBe(false);
    }
  });
});

describe('npm start without the server binaries', () => {
  it('names the Debian package of each missing server and stops', async () => {
    const [nats, postgres, redis] = await freePorts(3);
    const missing = startCommand({
      NATS_URL: `nats://127.0.0.1:${nats}`,
      DATABASE_URL: `postgres://postgres@127.0.0.1:${postgres}/shop`,
      REDIS_URL: `redis://127.0.0.1:${redis}`,
      NATS_SERVER_BIN: '/nonexistent/nats-server',
      PG_BIN_DIR: '/nonexistent/postgresql/bin',
      REDIS_SERVER_BIN: '/nonexistent/redis-server',
    });
    await new Promise((done) => missing.child.once('exit', done));
    expect(missing.child.exitCode).toBe(1);
    const output = missing.output();
    expect(output).toMatch(
      /NATS \(JetStream\) is not reachable .* and nats-server is not installed: apt-get install nats-server/,
    );
    expect(output).toMatch(
      /PostgreSQL is not reachable .* and .* is not installed: apt-get install postgresql/,
    );
    expect(output).toMatch(
      /Redis is not reachable .* and redis-server is not installed: apt-get install redis-server/,
    );
  }, 60_000);
});
