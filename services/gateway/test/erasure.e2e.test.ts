import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ERASED } from '@shop/contracts';
import { rebuildProjections, tableChecksums } from '@shop/projections';
import { readModelMigrations, readModelProjections } from '@shop/read-models';
import type { EventStore } from '@shop/eventstore';
import { AccountChanges } from '../src/auth/account-changes';
import { EVENT_STORE } from '../src/infrastructure/tokens';
import { chat, userMessage } from './chat-harness';
import { eventually, startTestStack, TestClient, TestStack } from './stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('erasure');
});
afterAll(async () => {
  await stack?.stop();
});

const unique = (label: string) => `${label}${randomUUID().replace(/-/g, '').slice(0, 10)}`;

interface Shopper {
  client: TestClient;
  userId: string;
  /** Every personal value this shopper typed, each one unique to this test run. */
  said: Record<string, string>;
}

/** Onboards with values found nowhere else, chats in one session, and asks for a memory. */
async function shopper(): Promise<Shopper & { sessionId: string }> {
  const said = {
    email: `${unique('mail')}@example.com`,
    displayName: unique('Name'),
    firstName: unique('First'),
    lastName: unique('Last'),
    street: `${unique('Street')} Road`,
    city: unique('City'),
    zip: unique('Z').slice(0, 10),
    bottomsSize: unique('B').slice(0, 10),
    footwearSize: unique('F').slice(0, 10),
    chat: unique('chatword'),
    title: unique('Title'),
    memory: unique('loves'),
  };
  const client = new TestClient(stack.url);
  const login = await client.request('POST', '/api/dev/login', { email: said.email });
  expect(login.status).toBe(200);
  await client.request('POST', '/api/onboarding/step-1', { displayName: said.displayName });
  await client.request('POST', '/api/onboarding/step-2', {
    firstName: said.firstName,
    lastName: said.lastName,
    street: said.street,
    country: 'US',
    city: said.city,
    state: 'TX',
    zip: said.zip,
  });
  const done = await client.request('POST', '/api/onboarding/step-3', {
    topsSize: 'M',
    bottomsSize: said.bottomsSize,
    footwearSize: said.footwearSize,
  });
  expect(done.status).toBe(200);
  const first = await chat(client, { messages: [userMessage(`I am looking for ${said.chat} shoes`)] });
  expect(first.status).toBe(200);
  const sessionId = first.headers.get('x-session-id')!;
  const remembered = await chat(client, {
    sessionId,
    messages: [userMessage(`remember that I ${said.memory} green`)],
  });
  expect(remembered.status).toBe(200);
  const renamed = await client.request('PATCH', `/api/sessions/${sessionId}`, { title: said.title });
  expect(renamed.status).toBe(200);
  return { client, userId: login.json.userId as string, said, sessionId };
}

/** The raw bytes of every stored message of these subjects, as text. */
async function rawMessagesOf(subjects: readonly string[]): Promise<string[]> {
  const texts: string[] = [];
  for await (const raw of stack.store.readRaw()) {
    if (subjects.includes(raw.subject)) texts.push(new TextDecoder().decode(raw.data));
  }
  return texts;
}

const subjectsOf = (userId: string, sessionId: string) => [
  stack.store.subject('user', userId),
  stack.store.subject('memory', userId),
  stack.store.subject('session', sessionId),
];

/** `npm run erase` as an operator runs it: another process than any gateway. */
const erase = (...args: string[]) =>
  promisify(execFile)(process.execPath, ['-r', '@swc-node/register', 'scripts/erase.ts', ...args], {
    cwd: resolve(__dirname, '../../..'),
    env: { ...process.env, ...stack.env.env },
  });

async function caughtUp(): Promise<number> {
  const last = await stack.store.lastStreamSequence();
  for (const runner of stack.projector.runners) await runner.caughtUp(last);
  return last;
}

describe('crypto-shredding', () => {
  it('a deleted chat session leaves none of its words readable in the stream, and a rebuild equals the live read model', async () => {
    const kept = await shopper();
    const { client, userId, sessionId, said } = await shopper();
    const before = await client.request('GET', `/api/sessions/${sessionId}`);
    expect(JSON.stringify(before.json)).toContain(said.chat);
    expect(before.json.title).toBe(said.title);

    const deleted = await client.request('DELETE', `/api/sessions/${sessionId}`);
    expect(deleted.status).toBe(204);

    const raw = await rawMessagesOf(subjectsOf(userId, sessionId));
    expect(raw.length).toBeGreaterThanOrEqual(5);
    for (const text of raw) {
      expect(text).not.toContain(said.chat);
      expect(text).not.toContain(said.title);
    }
    const { events } = await stack.store.load('session', sessionId);
    const messages = events.filter((e) => e.type === 'ChatMessageAppended');
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) {
      expect(message.data).toMatchObject({ parts: [{ type: 'text', text: ERASED }] });
    }
    expect(events.filter((e) => e.type === 'SessionRenamed').map((e) => e.data)).toContainEqual({
      title: ERASED,
      generated: false,
    });
    // The user's own data is untouched by a session's erasure; the other shopper's session reads.
    expect((await client.request('GET', '/api/auth/profile')).json.email).toBe(said.email);
    const other = await kept.client.request('GET', `/api/sessions/${kept.sessionId}`);
    expect(JSON.stringify(other.json)).toContain(kept.said.chat);

    await expectRebuildEqualsLive();
  });

  it('closing an account erases every personal field of the user from the raw stream; the account stays closed', async () => {
    const kept = await shopper();
    const { client, userId, sessionId, said } = await shopper();
    const closed = await client.request('DELETE', '/api/auth/account');
    expect([closed.status, closed.json]).toEqual([200, { success: true }]);

    const raw = await rawMessagesOf(subjectsOf(userId, sessionId));
    expect(raw.length).toBeGreaterThanOrEqual(8);
    for (const text of raw) {
      for (const [field, value] of Object.entries(said)) expect(text, field).not.toContain(value);
    }
    const { events } = await stack.store.load('user', userId);
    expect(events.find((e) => e.type === 'DisplayNameSet')?.data).toEqual({ displayName: ERASED });
    expect(events.find((e) => e.type === 'UserRegistered')?.data).toMatchObject({ email: null });
    expect(events.at(-1)).toMatchObject({ type: 'AccountClosed', data: { by: 'user' } });

    // The cookies are gone, and signing in again with the same identity is refused.
    expect((await client.request('GET', '/api/auth/profile')).status).toBe(401);
    const again = await client.request('POST', '/api/dev/login', { email: said.email });
    expect([again.status, again.json.code]).toEqual([403, 'ACCOUNT_CLOSED']);
    const { rows } = await stack.database.pool.query(
      `SELECT (SELECT count(*) FROM ${stack.env.schema}.users WHERE user_id = $1)::int AS users,
              (SELECT count(*) FROM ${stack.env.schema}.chat_sessions WHERE user_id = $1)::int AS sessions,
              (SELECT count(*) FROM ${stack.env.schema}.user_memories WHERE user_id = $1)::int AS memories`,
      [userId],
    );
    expect(rows[0]).toEqual({ users: 0, sessions: 0, memories: 0 });
    const profile = await kept.client.request('GET', '/api/auth/profile');
    expect(profile.json.email).toBe(kept.said.email);

    await expectRebuildEqualsLive();
  });

  it('an operator erases a user by id with npm run erase', async () => {
    const { client, userId, sessionId, said } = await shopper();
    const { stdout } = await erase('user', userId);
    expect(stdout).toContain(`user ${userId}: account closed; user key and 1 session keys destroyed`);
    for (const text of await rawMessagesOf(subjectsOf(userId, sessionId))) {
      for (const [field, value] of Object.entries(said)) expect(text, field).not.toContain(value);
    }
    const { events } = await stack.store.load('user', userId);
    expect(events.at(-1)).toMatchObject({ type: 'AccountClosed', actor: { kind: 'operator' } });
    // The closure came from another process: this gateway's guard hears of it as it is stored
    // (AccountChanges), but the request below may race that delivery, when the kept cookie
    // reaches the route and the session is not found; after it the cookie is refused. Either
    // answer is the product's.
    await caughtUp();
    const gone = await client.request('GET', `/api/sessions/${sessionId}`);
    expect([
      { status: 404, code: 'SessionNotFound' },
      { status: 401, code: 'UNAUTHORIZED' },
    ]).toContainEqual({ status: gone.status, code: gone.json.code });
    await expect(erase('user', 'not-a-uuid')).rejects.toMatchObject({ code: 64 });
  });

  it("an erasure by another process stops a second gateway opening the user's sealed fields within the data-key re-check bound", async () => {
    const email = `${unique('reach')}@example.com`;
    const userId = await new TestClient(await stack.startGateway()).onboard(email);
    // The first gateway runs the reactions, the erasure's among them; the second one only serves.
    const gatewayStore = stack.apps[1]!.get<EventStore>(EVENT_STORE);
    const sealedText = async () => JSON.stringify((await gatewayStore.load('user', userId)).events);
    expect(await sealedText()).toContain(email);

    await erase('user', userId);

    // docs/operations.md: a cached data key is asked for again after 5 s.
    expect(await eventually(sealedText, (text) => !text.includes(email), 5_000 + 3_000)).not.toContain(email);
  });

  it('refuses to close an account while an order is open, in the error envelope', async () => {
    const { client, userId } = await shopper();
    const profile = await eventually(
      () => client.request('GET', '/api/auth/profile'),
      (r) => r.json.walletStatus === 'active',
    );
    stack.provider.fund(profile.json.evmAddress as string, '500');
    const item = await client.request('POST', '/api/cart', {
      productId: 'B0ERASE0001',
      productName: 'Rain jacket',
      price: 8999,
      image: 'https://images.example.com/1.jpg',
      productUrl: 'https://shop.example.com/dp/1',
      retailer: 'Example Outfitters',
    });
    const checkout = await client.request('POST', '/api/checkout', { cartItemId: item.json.id });
    expect(checkout.status).toBe(201);

    const refused = await client.request('DELETE', '/api/auth/account');
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual({ error: expect.any(String), code: 'ORDER_OPEN' });
    expect((await stack.store.load('user', userId)).events.map((e) => e.type)).not.toContain('AccountClosed');
    expect((await client.request('GET', '/api/auth/profile')).status).toBe(200);
  });
});

describe('the sessions of a closed account', () => {
  const refused = { status: 401, json: { error: expect.any(String), code: 'UNAUTHORIZED' } };
  /** Closed by another process (an operator's erasure): this gateway's appends never carry it. */
  const closeElsewhere = async (userId: string) => {
    const { version } = await stack.store.load('user', userId);
    await stack.store.append('user', userId, [{ type: 'AccountClosed', data: { by: 'operator' } }], {
      commandId: randomUUID(),
      correlationId: randomUUID(),
      actor: { kind: 'operator', id: null },
      expectedSequence: version,
    });
  };
  const withCookie = (token: string) => {
    const client = new TestClient(stack.url);
    client.setCookie('provider-jwt', token);
    return client;
  };

  it('a session cookie kept from before the account was closed opens no route afterwards', async () => {
    const client = new TestClient(stack.url);
    await client.onboard(`${unique('kept')}@example.com`);
    expect((await client.request('GET', '/api/cart')).status).toBe(200);
    const token = client.cookie('provider-jwt')!;
    expect((await client.request('DELETE', '/api/auth/account')).status).toBe(200);

    const stale = withCookie(token);
    for (const path of ['/api/cart', '/api/sessions', '/api/auth/profile']) {
      const response = await stale.request('GET', path);
      expect({ status: response.status, json: response.json }, path).toEqual(refused);
    }
  });

  it('a closure this gateway did not append is read from the user aggregate, whatever the read model says', async () => {
    const client = new TestClient(stack.url);
    const userId = await client.onboard(`${unique('elsewhere')}@example.com`);
    const token = client.cookie('provider-jwt')!;
    await closeElsewhere(userId);

    const response = await withCookie(token).request('GET', '/api/cart');
    expect({ status: response.status, json: response.json }).toEqual(refused);
  });

  it('a closure by another process ends a session this gateway already let through as onboarded', async () => {
    const client = new TestClient(stack.url);
    const userId = await client.onboard(`${unique('cached')}@example.com`);
    const token = client.cookie('provider-jwt')!;
    expect((await withCookie(token).request('GET', '/api/cart')).status).toBe(200);
    await closeElsewhere(userId);

    // The profile is outside the rate-limited routes, so it can be asked until the guard sees the closure.
    const response = await eventually(
      () => withCookie(token).request('GET', '/api/auth/profile'),
      (r) => r.status === 401,
    );
    expect({ status: response.status, json: response.json }).toEqual(refused);
  });

  it('is not asked of the stream again while nothing of the account is committed, and a closure by another process is heard as it is stored', async () => {
    const client = new TestClient(stack.url);
    const userId = await client.onboard(`${unique('held')}@example.com`);
    expect((await client.request('GET', '/api/cart')).status).toBe(200);
    const store = stack.apps[0]!.get<EventStore>(EVENT_STORE);
    const subject = store.subject('user', userId);
    const reads = vi.spyOn(store.jsm.streams, 'getMessage');
    const readsOfTheUser = () =>
      reads.mock.calls.filter(([, query]) => JSON.stringify(query).includes(subject)).length;
    try {
      // Past the 5 s a status is kept when its changes cannot be heard: requests keep passing
      // and the user's subject is never read.
      const until = Date.now() + 5_500;
      while (Date.now() < until) {
        expect((await client.request('GET', '/api/cart')).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(readsOfTheUser()).toBe(0);

      const changes = stack.apps[0]!.get(AccountChanges);
      const mark = changes.mark();
      expect(changes.changedSince(userId, mark)).toBe(false);
      await closeElsewhere(userId);
      // Heard as stored: the next request asks the aggregate again and is refused.
      await eventually(
        async () => changes.changedSince(userId, mark),
        (changed) => changed === true,
      );
      const refused = await client.request('GET', '/api/auth/profile');
      expect([refused.status, refused.json.code]).toEqual([401, 'UNAUTHORIZED']);
      expect(readsOfTheUser()).toBeGreaterThan(0);
    } finally {
      reads.mockRestore();
    }
  });
});

async function expectRebuildEqualsLive(): Promise<void> {
  const last = await caughtUp();
  const projections = readModelProjections();
  const tables = projections.flatMap((p) => p.tables);
  const rebuilt = `${stack.env.schema}_rb${randomUUID().slice(0, 6)}`;
  await rebuildProjections({
    store: stack.store,
    db: stack.database.db,
    schema: rebuilt,
    projections,
    migrations: readModelMigrations,
    untilSequence: last,
  });
  const live = await tableChecksums(stack.database.db, stack.env.schema, tables);
  expect(live.users!.rows).toBeGreaterThan(0);
  expect(live.chat_messages!.rows).toBeGreaterThan(0);
  expect(await tableChecksums(stack.database.db, rebuilt, tables)).toEqual(live);
  await stack.database.pool.query(`DROP SCHEMA ${rebuilt} CASCADE`);
}
