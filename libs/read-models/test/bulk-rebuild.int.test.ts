import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Actor, AggregateName, NewEvent, systemActor } from '@shop/contracts';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { catchUpProjections, rebuildProjections, recreateSchema, tableChecksums } from '@shop/projections';
import { dropSchema, openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { orderPage } from '../src/order/order-queries';
import { readModel } from '../src/read-model-database';
import { readModelMigrations } from '../src/read-model-migrations';
import { readModelProjections } from '../src/read-model-projections';

const env = testEnvironment('bulkrebuild');
let t: TestEventStore;
let database: DatabaseHandle;

beforeAll(async () => {
  t = await openTestEventStore(env);
  database = createDatabase(env.databaseUrl, { max: 6 });
});
afterAll(async () => {
  await database.close();
  await t.close();
  await dropSchema(env);
});

async function append(
  aggregate: AggregateName,
  id: string,
  event: NewEvent,
  actor: Actor = systemActor,
): Promise<void> {
  await t.store.append(aggregate, id, [event], {
    commandId: randomUUID(),
    correlationId: 'bulk-rebuild',
    actor,
    expectedSequence: await t.store.lastSequence(t.store.subject(aggregate, id)),
  });
}

const product = (itemId: string, n: number) => ({
  itemId,
  productId: `P${n}`,
  productName: `Product\t${n}\nwith "quotes" and \\ backslash`,
  price: 500 + n,
  image: 'https://example.com/p.jpg',
  size: 'M',
  color: 'Blue',
  productUrl: `https://example.com/p/${n}`,
  retailer: 'zara',
});

/** A user's life touching every read-model table, closed or not at the end; their id. */
async function life(close: boolean): Promise<string> {
  const userId = randomUUID();
  const sessionId = randomUUID();
  const kept = randomUUID();
  const orderId = randomUUID();
  const [a, b] = [randomUUID(), randomUUID()];
  await append('user', userId, {
    type: 'UserRegistered',
    data: { providerSubject: `p|${userId}`, email: `${userId}@example.com` },
  });
  await append('user', userId, { type: 'DisplayNameSet', data: { displayName: 'Ann\\Lee' } });
  await append('user', userId, {
    type: 'SizesSaved',
    data: { topsSize: 'M', bottomsSize: '32', footwearSize: '42', firstCompletion: true },
  });
  await append('memory', userId, {
    type: 'PreferenceRemembered',
    data: { fact: 'likes\nblue', namespace: 'preferences', source: 'chat' },
  });
  await append('cart', userId, { type: 'ItemAdded', data: product(a, 1) });
  await append('cart', userId, { type: 'ItemAdded', data: product(b, 2) });
  await append('cart', userId, { type: 'ItemRemoved', data: { itemId: a, reason: 'removed' } });
  for (const session of [sessionId, kept]) {
    await append('session', session, { type: 'SessionCreated', data: { userId, title: null } });
    await append('session', session, {
      type: 'ChatMessageAppended',
      data: { messageId: randomUUID(), role: 'user', parts: [{ type: 'text', text: 'hi\tthere' }] },
    });
  }
  await append('session', kept, { type: 'SessionRenamed', data: { title: 'Shoes', generated: false } });
  await append('session', sessionId, { type: 'SessionDeleted', data: {} });
  const orderCreated = (id: string): NewEvent => ({
    type: 'OrderCreated',
    data: {
      userId,
      type: 'checkout',
      cartItemId: b,
      providerOrderId: `po-${id}`,
      phase: 'quote',
      item: product(b, 2),
      payment: null,
      quote: null,
      walletAddress: null,
      serializedTransaction: null,
    },
  });
  await append('order', orderId, orderCreated(orderId));
  // An outside agent's order names it in the actor: the order lists the agent by its registered name.
  const agentClientId = randomUUID();
  await append('agent-client', agentClientId, {
    type: 'AgentClientRegistered',
    data: { clientName: 'Desk\t"agent"', redirectUris: ['https://agent.example.com/callback'] },
  });
  const agentOrderId = randomUUID();
  await append('order', agentOrderId, orderCreated(agentOrderId), {
    kind: 'user',
    id: userId,
    agentClientId,
  });
  const [connected, disconnected] = [randomUUID(), randomUUID()];
  for (const grant of [connected, disconnected])
    await append('agent-grant', grant, {
      type: 'AgentGrantApproved',
      data: {
        userId,
        clientId: randomUUID(),
        clientName: 'Desk "assistant"',
        scopes: ['catalog', 'cart'],
        resource: 'https://shop.example.com/mcp',
        refreshTokenHash: 'a'.repeat(64),
      },
    });
  await append('agent-grant', connected, {
    type: 'AgentGrantRefreshed',
    data: { refreshTokenHash: 'b'.repeat(64) },
  });
  await append('agent-grant', disconnected, {
    type: 'AgentGrantRevoked',
    data: { userId, reason: 'shopper' },
  });
  if (close) await append('user', userId, { type: 'AccountClosed', data: { by: 'operator' } });
  return userId;
}

/** The live projector's way: small batches, through each projection's apply. */
async function projectLive(schema: string): Promise<void> {
  await recreateSchema(database.db, schema, readModelMigrations);
  await catchUpProjections({
    store: t.store,
    db: database.db,
    schema,
    projections: readModelProjections(),
    until: await t.store.lastStreamSequence(),
    batchSize: 3,
  });
}

const rebuild = (schema: string, decodeBatch?: number) =>
  rebuildProjections({
    store: t.store,
    db: database.db,
    schema,
    projections: readModelProjections(),
    migrations: readModelMigrations,
    decodeBatch,
  });

const parkedSubjects = (schema: string) =>
  database.db
    .withSchema(schema)
    .selectFrom('parked_subjects')
    .select(['projection', 'subject', 'sequence'])
    .orderBy('projection')
    .execute();

describe('a rebuild folding the stream in memory', () => {
  it('writes with COPY the rows the live projector wrote, closures, deletions and escapes included', async () => {
    const users = [];
    for (let i = 0; i < 4; i++) users.push(await life(i % 2 === 1));
    const live = `${env.schema}_live`;
    const rebuilt = `${env.schema}_rb`;
    await projectLive(live);

    const result = await rebuild(rebuilt);

    expect(result.bulkFallback).toBeUndefined();
    const tables = [...readModelProjections().flatMap((p) => p.tables), 'projection_checkpoints'];
    const { projection_checkpoints: checkpoints, ...rows } = await tableChecksums(
      database.db,
      rebuilt,
      tables,
    );
    const { projection_checkpoints: liveCheckpoints, ...liveRows } = await tableChecksums(
      database.db,
      live,
      tables,
    );
    expect(rows).toEqual(liveRows);
    expect(rows.users!.rows).toBe(2);
    expect(rows.agent_grants!.rows).toBe(2);
    expect(rows.agent_clients!.rows).toBe(4);
    // Each user's own order names no agent, the agent's names it: the same in both read models.
    for (const schema of [live, rebuilt]) {
      const { orders } = await orderPage(readModel(database.db, schema), users[0]!, 1, 10, {});
      expect(orders.map((order) => order.agent).sort((x, y) => (x ? 1 : y ? -1 : 0))).toEqual([
        null,
        { clientId: expect.any(String), clientName: 'Desk\t"agent"' },
      ]);
    }
    expect(checkpoints!.rows).toBe(liveCheckpoints!.rows);
    const positions = await database.db
      .withSchema(rebuilt)
      .selectFrom('projection_checkpoints')
      .select('position')
      .execute();
    expect(positions.map((p) => Number(p.position))).toEqual(
      Array(readModelProjections().length).fill(result.lastSequence),
    );
  });

  it('folds in stream order while the next batch decodes: many small batches write the same rows', async () => {
    await life(true);
    await life(false);
    const tables = readModelProjections().flatMap((p) => p.tables);
    const whole = `${env.schema}_rb_whole`;
    const small = `${env.schema}_rb_small`;
    expect((await rebuild(whole)).bulkFallback).toBeUndefined();

    const result = await rebuild(small, 3);

    expect(result.bulkFallback).toBeUndefined();
    expect(await tableChecksums(database.db, small, tables)).toEqual(
      await tableChecksums(database.db, whole, tables),
    );
    const positions = await database.db
      .withSchema(small)
      .selectFrom('projection_checkpoints')
      .select('position')
      .execute();
    expect(positions.map((p) => Number(p.position))).toEqual(
      Array(readModelProjections().length).fill(result.lastSequence),
    );
  });

  it('rebuilds the batch way, parking as live did, when the stream holds an event a fold refuses', async () => {
    await append('cart', randomUUID(), {
      type: 'ItemRemoved',
      data: { itemId: randomUUID(), reason: 'removed' },
    });
    await life(false);
    const live = `${env.schema}_live2`;
    const rebuilt = `${env.schema}_rb2`;
    await projectLive(live);

    // Small batches: the fold fails while the next batch is decoding.
    const result = await rebuild(rebuilt, 3);

    expect(result.bulkFallback).toMatch(/unknown cart item/);
    const tables = [...readModelProjections().flatMap((p) => p.tables), 'parked_events'];
    expect(await tableChecksums(database.db, rebuilt, tables)).toEqual(
      await tableChecksums(database.db, live, tables),
    );
    const parked = await parkedSubjects(rebuilt);
    expect(parked).toEqual(await parkedSubjects(live));
    expect(parked.map((p) => p.projection)).toEqual(['cart_items']);
  });
});
