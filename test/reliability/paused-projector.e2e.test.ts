import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleValue, ServiceMetrics } from '@shop/metrics';
import { ServiceProcess } from '@shop/testing';
import { Client, figures, Stack, writeFigures } from './harness';

/**
 * The projector as its own process, frozen with SIGSTOP: the read model stops moving while the
 * stream keeps taking writes, as on a busy machine, during a catch-up or a restart. Commands then
 * answer after their read-your-writes wait times out; what the client does next must still see
 * its own writes: the gate opens at once after step 3, and a read waits (bounded) for the
 * position its consistency token names instead of answering from the stale read model.
 */
let stack: Stack;
let projector: ServiceProcess;
/** A gateway whose reads wait long enough for the projector to be resumed. */
let patientUrl: string;
let paused = false;

const address = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  street: '1 Main Street',
  country: 'US',
  city: 'Austin',
  state: 'TX',
  zip: '78701',
};
const sizes = { topsSize: 'M', bottomsSize: '32', footwearSize: '42' };

function pause(): void {
  projector.child.kill('SIGSTOP');
  paused = true;
}

function resume(): void {
  projector.child.kill('SIGCONT');
  paused = false;
}

async function readModelStep(userId: string): Promise<number | undefined> {
  const row = await stack.database.db
    .withSchema(stack.env.schema)
    .selectFrom('users' as never)
    .select('onboarding_step' as never)
    .where('user_id' as never, '=', userId as never)
    .executeTakeFirst();
  return (row as { onboarding_step?: number } | undefined)?.onboarding_step;
}

/** Signed in and through steps 1 and 2 while the projector runs. */
async function halfOnboarded(url: string): Promise<{ client: Client; userId: string }> {
  const client = new Client(url);
  const login = await client.request('POST', '/api/dev/login', {
    email: `paused-${randomUUID().slice(0, 8)}@example.com`,
  });
  expect(login.status).toBe(200);
  expect((await client.request('POST', '/api/onboarding/step-1', { displayName: 'Ada' })).status).toBe(200);
  expect((await client.request('POST', '/api/onboarding/step-2', address)).status).toBe(200);
  return { client, userId: login.json.userId as string };
}

async function consistentReadTimeouts(app: number): Promise<number> {
  const samples = parsePrometheusText(await stack.apps[app]!.get(ServiceMetrics).render());
  return sampleValue(samples, 'consistent_read_timeouts_total');
}

beforeAll(async () => {
  // The first gateway gives up on a read's wait quickly, so a frozen projector costs little time.
  stack = await Stack.start('paused-projector', {
    projector: false,
    vars: { READ_YOUR_WRITES_TIMEOUT_MS: '300', CONSISTENT_READ_TIMEOUT_MS: '300' },
  });
  patientUrl = await stack.startGateway({ CONSISTENT_READ_TIMEOUT_MS: '30000' });
  projector = stack.spawnProjector({ LOG_LEVEL: 'info' });
  await projector.waitForOutput(/projector metrics listening/, 60_000);
  const warmup = new Client(stack.url);
  await warmup.request('POST', '/api/dev/login', { email: `warmup-${randomUUID().slice(0, 8)}@example.com` });
  for (let i = 0; i < 600; i++) {
    if ((await warmup.request('GET', '/api/auth/profile')).status === 200) break;
    await sleep(100);
  }
}, 90_000);
afterEach(() => {
  if (paused) resume();
});
afterAll(async () => {
  writeFigures('paused-projector');
  await stack?.stop();
});

describe('the gate with the projector paused between step 3 and the gated request', () => {
  it('opens gated routes at once after step 3, from the user aggregate, while the read model still says step 2', async () => {
    const { client, userId } = await halfOnboarded(stack.url);
    pause();
    expect((await client.request('POST', '/api/onboarding/step-3', sizes)).json).toEqual({
      success: true,
      step: 3,
    });
    expect(await readModelStep(userId)).toBe(2);

    const created = await client.request('POST', '/api/sessions', { title: 'First list' });
    expect([created.status, created.json.code]).toEqual([201, undefined]);
    const cart = await client.request('GET', '/api/cart');
    expect(cart.status).toBe(200);
    expect(await readModelStep(userId)).toBe(2);
    figures.faultsSurvived++;
  });

  it('still refuses a user who has not done step 3, with 403 ONBOARDING_INCOMPLETE', async () => {
    const { client } = await halfOnboarded(stack.url);
    pause();
    const refused = await client.request('GET', '/api/cart');
    expect([refused.status, refused.json.code]).toEqual([403, 'ONBOARDING_INCOMPLETE']);
  });
});

describe('read-your-writes through the consistency token', () => {
  it('makes the next read wait for the position of the client’s own write once the projector resumes', async () => {
    const client = new Client(patientUrl);
    await client.onboard(`ryw-${randomUUID().slice(0, 8)}@example.com`);
    pause();
    const created = await client.request('POST', '/api/sessions', { title: 'Plans' });
    expect(created.status).toBe(201);

    const read = client.request('GET', `/api/sessions/${created.json.id as string}`);
    await sleep(300);
    resume();
    const session = await read;
    expect([session.status, session.json.title]).toEqual([200, 'Plans']);
    // The command's own wait timed out: its answer carried the position to wait for instead.
    expect(created.setCookies.some((cookie) => cookie.startsWith('consistency-token='))).toBe(true);
    figures.faultsSurvived++;
  });

  it('gives up after the bound when the projector stays paused, and counts the timeout', async () => {
    const client = new Client(stack.url);
    await client.onboard(`bound-${randomUUID().slice(0, 8)}@example.com`);
    pause();
    const before = await consistentReadTimeouts(0);
    const created = await client.request('POST', '/api/sessions', { title: 'Later' });
    expect(created.status).toBe(201);
    const stale = await client.request('GET', `/api/sessions/${created.json.id as string}`);
    expect([stale.status, stale.json.code]).toEqual([404, 'SessionNotFound']);
    expect(await consistentReadTimeouts(0)).toBe(before + 1);
  });
});
