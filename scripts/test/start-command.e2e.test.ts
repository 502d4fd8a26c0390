import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dropSchema,
  freePorts,
  openTestEventStore,
  spawnManaged,
  testEnvironment,
  type ManagedChild,
} from '@shop/testing';

/**
 * `npm start` itself, with an operator's environment: a real provider without a webhook secret, a
 * real chain without a contract, the real scraping platform, and its own ports. The "real" systems
 * are addresses nothing listens on, so only the model's stand-in is started and the test stays
 * offline. Every port is one of its own, so another stack on the machine (another test's) is no
 * neighbour.
 */
const root = resolve(__dirname, '..', '..');
const env = testEnvironment('startcmd');
let start: ManagedChild;
let gatewayPort: number;
let searchPort: number;
let analyticsPort: number;
let metricsPort: number;
let nowhere: string;

beforeAll(async () => {
  const ports = await freePorts(9);
  [gatewayPort, searchPort, analyticsPort, metricsPort] = ports as [number, number, number, number];
  const closedPort = ports[4]!;
  const [gatewayMetricsPort, searchMetricsPort, modelPort, tracesPort] = ports.slice(5);
  nowhere = `http://127.0.0.1:${closedPort}`;
  start = spawnManaged(process.execPath, ['-r', '@swc-node/register', resolve(root, 'scripts/start.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      ...env.env,
      LOG_LEVEL: 'info',
      ANALYTICS_SCHEMA: `${env.schema}_analytics`,
      SEARCH_SCHEMA: `${env.schema}_search`,
      PORT: String(gatewayPort),
      SEARCH_PORT: String(searchPort),
      ANALYTICS_PORT: String(analyticsPort),
      METRICS_PORT: String(metricsPort),
      GATEWAY_METRICS_PORT: String(gatewayMetricsPort),
      SEARCH_METRICS_PORT: String(searchMetricsPort),
      MODEL_SANDBOX_PORT: String(modelPort),
      TRACES_PORT: String(tracesPort),
      WALLET_ENCRYPTION_KEY: 'cd'.repeat(32),
      DEPOSIT_WEBHOOK_SECRET: 'operator-deposit-secret',
      PROVIDER_API_URL: nowhere,
      PROVIDER_API_KEY: 'sk_operator',
      CHAIN_RPC_URL: nowhere,
      APIFY_API_BASE_URL: nowhere,
      APIFY_API_TOKEN: 'apify_operator',
    },
  });
  await start.waitForOutput(/The stack is up/, 150_000);
}, 180_000);

afterAll(async () => {
  await start?.stop('SIGTERM', 15_000);
  const store = await openTestEventStore(env);
  await store.close();
  await dropSchema(env);
}, 60_000);

/** Dev login and the three onboarding steps, keeping the session cookie as a browser would. */
async function onboardedCookie(gateway: string): Promise<string> {
  const login = await fetch(`${gateway}/api/dev/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'operator-start@example.com' }),
  });
  expect(login.status).toBe(200);
  const cookie = login.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const steps: [string, object][] = [
    ['step-1', { displayName: 'Operator' }],
    [
      'step-2',
      {
        firstName: 'Ada',
        lastName: 'Lovelace',
        street: '1 Main Street',
        country: 'US',
        city: 'Austin',
        zip: '78701',
      },
    ],
    ['step-3', { topsSize: 'M', bottomsSize: '32', footwearSize: '9' }],
  ];
  for (const [step, body] of steps) {
    const res = await fetch(`${gateway}/api/onboarding/${step}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify(body),
    });
    expect(res.status, step).toBe(200);
  }
  return cookie;
}

describe('npm start with an operator environment', () => {
  it('starts no stand-in for a system the operator names, and says which systems are real', () => {
    const output = start.output();
    expect(output).toMatch(new RegExp(`payment provider\\s+real ${nowhere}`));
    expect(output).toMatch(new RegExp(`scraping platform\\s+real ${nowhere}`));
    expect(output).toMatch(new RegExp(`Sui JSON-RPC node\\s+real ${nowhere}`));
    expect(output).not.toMatch(/^\[(provider|apify|sui)\]/m);
  });

  it('serves every service on the port the operator gave it', async () => {
    for (const port of [gatewayPort, analyticsPort, metricsPort]) {
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status, `port ${port}`).toBe(200);
    }
    // The search service got the operator's scraping platform, which cannot be reached.
    const health = await fetch(`http://127.0.0.1:${searchPort}/api/search/realtime/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ data: { status: 'unavailable' } });
  });

  it('runs a real provider without a webhook secret: webhooks answer 503 WEBHOOK_NOT_CONFIGURED', async () => {
    const res = await fetch(`http://127.0.0.1:${gatewayPort}/api/webhooks/provider`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([
      503,
      'WEBHOOK_NOT_CONFIGURED',
    ]);
  });

  it('runs without a contract: POST /api/cart/init answers 400 CONTRACT_NOT_CONFIGURED', async () => {
    const gateway = `http://127.0.0.1:${gatewayPort}`;
    const cookie = await onboardedCookie(gateway);
    const res = await fetch(`${gateway}/api/cart/init`, { method: 'POST', headers: { cookie } });
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([
      400,
      'CONTRACT_NOT_CONFIGURED',
    ]);
    expect(start.output()).not.toMatch(/chain indexer is the active one/);
  });
});
