import { randomUUID } from 'node:crypto';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsEnv, loadConfig } from '@shop/config';
import { Actor, AggregateName, eventCatalogue, NewEvent } from '@shop/contracts';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { buildCommit, encodeCommit } from '@shop/eventstore';
import { parsePrometheusText, sampleValue } from '@shop/metrics';
import { createLogger } from '@shop/logging';
import { rebuildProjections, tableChecksums } from '@shop/projections';
import { dropSchema, openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import {
  AnalyticsDatabase,
  analyticsMigrations,
  analyticsProjections,
  readAnalyticsReport,
  renderHtmlReport,
  RunningAnalytics,
  startAnalytics,
} from '../src';

const env = testEnvironment('analytics');
const operatorToken = 'operator-token-0123456789';
let events: TestEventStore;
let database: DatabaseHandle;
let analytics: RunningAnalytics;
let last = 0;

const day1 = '2026-03-01';
const day2 = '2026-03-02';
const day3 = '2026-03-03';
const at = (day: string, hour = 10) => new Date(`${day}T${String(hour).padStart(2, '0')}:00:00.000Z`);

/** The history is written with the times the script says, through the event store's own codec. */
const versions = new Map<string, number>();
const append = (aggregate: AggregateName, id: string, when: Date, ...newEvents: NewEvent[]) =>
  appendAs({ kind: 'system', id: null }, aggregate, id, when, ...newEvents);

async function appendAs(
  actor: Actor,
  aggregate: AggregateName,
  id: string,
  when: Date,
  ...newEvents: NewEvent[]
) {
  const subject = events.store.subject(aggregate, id);
  const commit = buildCommit(
    eventCatalogue,
    id,
    newEvents,
    { commandId: randomUUID(), correlationId: randomUUID(), actor },
    when,
  );
  const ack = await events.store.js.publish(subject, encodeCommit(commit), {
    expect: { lastSubjectSequence: versions.get(subject) ?? 0 },
  });
  versions.set(subject, ack.seq);
  last = ack.seq;
}

const item = (productId: string, productName: string, retailer: string, price: number) => ({
  productId,
  productName,
  price,
  image: 'https://example.com/i.jpg',
  size: 'M',
  color: 'Blue',
  productUrl: `https://example.com/${productId}`,
  retailer,
});
const progress = { phase: 'x', payment: null, quote: null, deliveryId: null };
const address = {
  firstName: 'A',
  lastName: 'B',
  street: 'S',
  apt: null,
  country: 'US',
  city: 'C',
  state: null,
  zip: '1',
};
const sizes = { topsSize: 'M', bottomsSize: '32', footwearSize: '42', firstCompletion: true };

async function onboard(userId: string, day: string, steps: number) {
  await append('user', userId, at(day, 8), {
    type: 'UserRegistered',
    data: { providerSubject: userId, email: null },
  });
  if (steps >= 1)
    await append('user', userId, at(day, 9), { type: 'DisplayNameSet', data: { displayName: 'N' } });
  if (steps >= 2) await append('user', userId, at(day, 9), { type: 'ShippingAddressSaved', data: address });
  if (steps >= 3) await append('user', userId, at(day, 9), { type: 'SizesSaved', data: sizes });
}

async function order(
  id: string,
  userId: string,
  day: string,
  type: 'checkout' | 'deposit',
  snapshot: ReturnType<typeof item> | null,
  actor: Actor = { kind: 'system', id: null },
) {
  await appendAs(actor, 'order', id, at(day, 11), {
    type: 'OrderCreated',
    data: {
      userId,
      type,
      cartItemId: null,
      providerOrderId: `p-${id}`,
      phase: 'quote',
      item: snapshot,
      payment: null,
      quote: null,
      walletAddress: null,
      serializedTransaction: null,
    },
  });
}

async function deposit(digest: string, userId: string, day: string, usdmxAmount: string) {
  await append('deposit', digest, at(day, 12), {
    type: 'DepositClaimed',
    data: {
      attempt: 1,
      userId,
      payerAddress: '0x1',
      evmAddress: '0x2',
      amountMist: '1',
      usdcAmount: usdmxAmount,
      coinType: '0x2::sui::SUI',
      source: 'verify',
      claimedAt: at(day, 12).toISOString(),
    },
  });
  await append('deposit', digest, at(day, 13), {
    type: 'DepositCredited',
    data: { attempt: 1, usdmxAmount, evmAddress: '0x2' },
  });
}

/** Four users, three days: every number below follows from this script alone. */
async function scriptedHistory() {
  const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const [o1, o2, o3, o4] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const socks = item('P-SOCKS', 'Socks', 'amazon', 1500);
  const coat = item('P-COAT', 'Coat', 'zara', 2500);

  await onboard(a, day1, 3);
  // A second answer to step 1 is not a second arrival at it.
  await append('user', a, at(day2), { type: 'DisplayNameSet', data: { displayName: 'Again' } });
  await append('cart', a, at(day1), { type: 'ItemAdded', data: { ...socks, itemId: randomUUID() } });
  await append('cart', a, at(day1), { type: 'ItemAdded', data: { ...coat, itemId: randomUUID() } });
  await order(o1, a, day1, 'checkout', socks);
  await append('order', o1, at(day2), { type: 'OrderPaymentConfirmed', data: progress });
  // A repeated confirmation books nothing twice.
  await append('order', o1, at(day2, 14), { type: 'OrderPaymentConfirmed', data: progress });
  await append('order', o1, at(day2, 15), { type: 'OrderDeliveryStarted', data: progress });
  await append('order', o1, at(day3), { type: 'OrderDelivered', data: progress });
  await order(o2, a, day2, 'checkout', coat);
  await append('order', o2, at(day2, 16), { type: 'OrderPaymentConfirmed', data: progress });
  // A deposit order is neither a first order nor revenue.
  await order(o4, d, day3, 'deposit', null);
  await append('order', o4, at(day3, 12), { type: 'OrderPaymentConfirmed', data: progress });

  await onboard(b, day1, 2);
  await onboard(c, day2, 3);
  // c shops through an outside agent; another agent registered and never acted.
  const [desk, idle] = [randomUUID(), randomUUID()];
  for (const [client, clientName] of [
    [desk, 'Desk assistant'],
    [idle, 'Idle agent'],
  ] as const)
    await appendAs({ kind: 'system', id: 'agent-registration' }, 'agent-client', client, at(day2), {
      type: 'AgentClientRegistered',
      data: { clientName, redirectUris: ['http://127.0.0.1:5000/callback'] },
    });
  const viaDesk: Actor = { kind: 'user', id: c, agentClientId: desk };
  await appendAs(viaDesk, 'cart', c, at(day2), {
    type: 'ItemAdded',
    data: { ...socks, productName: 'Socks, renamed later', itemId: randomUUID() },
  });
  await order(o3, c, day3, 'checkout', socks, viaDesk);
  await append('order', o3, at(day3, 12), {
    type: 'OrderCancelled',
    data: { ...progress, stage: 'payment', reason: 'declined' },
  });
  await onboard(d, day3, 0);

  await deposit(randomUUID(), a, day1, '10.5');
  await deposit(randomUUID(), b, day1, '0.25');
  await deposit(randomUUID(), c, day2, '3');

  for (const [session, owner, day] of [
    [randomUUID(), a, day1],
    [randomUUID(), a, day1],
    [randomUUID(), c, day2],
  ] as const) {
    await append('session', session, at(day), {
      type: 'SessionCreated',
      data: { userId: owner, title: null },
    });
    await append('session', session, at(day, 11), {
      type: 'ChatMessageAppended',
      data: { messageId: randomUUID(), role: 'user', parts: [{ type: 'text', text: 'hi' }] },
    });
  }
}

const expectedReport = {
  funnel: [
    { stage: 'registered', users: 4 },
    { stage: 'step 1: name', users: 3 },
    { stage: 'step 2: address', users: 3 },
    { stage: 'step 3: sizes', users: 2 },
    { stage: 'first cart item', users: 2 },
    { stage: 'first order', users: 2 },
    { stage: 'first delivery', users: 1 },
  ],
  revenueByDay: [{ day: day2, orders: 2, revenueCents: 4000 }],
  revenueByRetailer: [
    { retailer: 'zara', orders: 1, revenueCents: 2500 },
    { retailer: 'amazon', orders: 1, revenueCents: 1500 },
  ],
  depositsByDay: [
    { day: day1, deposits: 2, usdmxAmount: '10.75' },
    { day: day2, deposits: 1, usdmxAmount: '3' },
  ],
  topProducts: [
    { productId: 'P-SOCKS', productName: 'Socks', retailer: 'amazon', adds: 2 },
    { productId: 'P-COAT', productName: 'Coat', retailer: 'zara', adds: 1 },
  ],
  sessionsByDay: [
    { day: day1, sessions: 2 },
    { day: day2, sessions: 1 },
  ],
  agents: [
    { clientId: expect.any(String), clientName: 'Desk assistant', cartAdds: 1, orders: 1 },
    { clientId: expect.any(String), clientName: 'Idle agent', cartAdds: 0, orders: 0 },
  ],
};

const analyticsDb = (schema: string) =>
  database.db.withSchema(schema) as unknown as Kysely<AnalyticsDatabase>;

async function caughtUp(): Promise<void> {
  await Promise.all(analytics.runners.map((r) => r.caughtUp(last)));
}

beforeAll(async () => {
  events = await openTestEventStore(env);
  database = createDatabase(env.databaseUrl, { max: 4 });
  const config = loadConfig(analyticsEnv, {
    ...process.env,
    ...env.env,
    ANALYTICS_SCHEMA: env.schema,
    PORT: '0',
    HOST: '127.0.0.1',
    ANALYTICS_OPERATOR_TOKEN: operatorToken,
  });
  analytics = await startAnalytics(config, createLogger('test', 'silent'));
  await scriptedHistory();
  await caughtUp();
});
afterAll(async () => {
  await analytics?.stop();
  await events?.close();
  await sql`DROP SCHEMA IF EXISTS ${sql.id(`${env.schema}_rebuilt`)} CASCADE`.execute(database.db);
  await database?.close();
  await dropSchema(env);
});

describe('analytics projections', () => {
  it('give exactly the numbers of the scripted history', async () => {
    expect(await readAnalyticsReport(analyticsDb(env.schema))).toEqual(expectedReport);
  });

  it('are rebuilt from the stream into the same rows, whatever the batch size', async () => {
    const tables = analyticsProjections.flatMap((p) => p.tables);
    const live = await tableChecksums(database.db, env.schema, tables);
    for (const batchSize of [1, 3, 1000]) {
      const rebuilt = await rebuildProjections({
        store: events.store,
        db: database.db,
        schema: `${env.schema}_rebuilt`,
        projections: analyticsProjections,
        migrations: analyticsMigrations,
        batchSize,
      });
      expect(rebuilt.lastSequence).toBe(last);
      expect(await tableChecksums(database.db, `${env.schema}_rebuilt`, tables)).toEqual(live);
    }
  });

  it('render the report as a page with SVG charts of the funnel and daily revenue', () => {
    const page = renderHtmlReport(expectedReport, new Date('2026-03-04T00:00:00Z'));
    expect(page.match(/<svg /g)).toHaveLength(2);
    expect(page).toContain('aria-label="Onboarding funnel"');
    expect(page).toContain('aria-label="Revenue per day (USD)"');
    expect(page).toContain('$40.00');
    expect(page).toContain('<td>10.75</td>');
  });
});

describe('analytics HTTP', () => {
  it('serves the report to an operator with the token, and to no one else', async () => {
    const url = `${analytics.url}/api/analytics/report`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(
      401,
    );
    const ok = await fetch(url, { headers: { authorization: `Bearer ${operatorToken}` } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual(expectedReport);
    const html = await fetch(`${url}?format=html`, { headers: { authorization: `Bearer ${operatorToken}` } });
    expect(html.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('exports its projections’ progress on /metrics and is ready', async () => {
    const samples = parsePrometheusText(await (await fetch(`${analytics.url}/metrics`)).text());
    for (const projection of analyticsProjections.map((p) => p.name)) {
      expect(sampleValue(samples, 'projection_checkpoint', { projection })).toBe(last);
      expect(sampleValue(samples, 'projection_lag_events', { projection })).toBe(0);
    }
    expect(
      sampleValue(samples, 'projection_events_applied_total', { projection: 'analytics_revenue' }),
    ).toBeGreaterThan(0);
    const ready = await fetch(`${analytics.url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      ready: true,
      checks: { nats: { ok: true }, postgres: { ok: true } },
    });
  });
});
