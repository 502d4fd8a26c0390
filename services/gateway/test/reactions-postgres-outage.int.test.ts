import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataKeyIdFor, eventCatalogue, NewEvent, systemActor } from '@shop/contracts';
import type { AggregateName } from '@shop/contracts';
import {
  createDatabase,
  DatabaseHandle,
  migrateSchema,
  ReactionsDatabase,
  reactionsMigrations,
} from '@shop/db';
import { EventStore } from '@shop/eventstore';
import type { ReadModelDatabase } from '@shop/read-models';
import { Reaction, ReactionRunner } from '@shop/reactions';
import {
  openTestEventStore,
  PrivatePostgres,
  startPrivatePostgres,
  testDataEncryptionKey,
  testEnvironment,
  TestEventStore,
  WatchedParking,
} from '@shop/testing';
import { DataKeyVault, openDataKeyVault } from '@shop/wallets';
import type { Aggregates } from '@shop/commands';
import { SessionKeyErasureReaction } from '../src/sessions/session-key-erasure.reaction';
import { AccountErasureReaction } from '../src/user/account-erasure.reaction';
import { ProviderWebhookReaction } from '../src/webhooks/provider-webhook.reaction';

/**
 * The gateway's Postgres (data keys, the reactions' parking, the read models) is down for longer
 * than every retry back-off while deletions, an account closure and provider webhooks are
 * recorded. Once it is back, every reaction's work is done once: keys destroyed, each webhook's
 * order update issued once. The runners' lock is in another Postgres that stays up, so they keep
 * consuming through the outage (losing the lock is the runner test's case).
 */

const env = testEnvironment('reactpgdown');
let t: TestEventStore;
let postgres: PrivatePostgres;
let database: DatabaseHandle;
let vault: DataKeyVault;
let store: EventStore;

beforeAll(async () => {
  t = await openTestEventStore(env);
  postgres = await startPrivatePostgres();
  database = createDatabase(postgres.url, { max: 6 });
  await migrateSchema(database.db as Kysely<unknown>, 'reactions', reactionsMigrations);
  await sql`CREATE TABLE orders (order_id text PRIMARY KEY, provider_order_id text, type text)`.execute(
    database.db,
  );
  vault = await openDataKeyVault(database.db as Kysely<unknown>, 'secrets', testDataEncryptionKey(env));
  // The gateway's event store: its sealed fields' keys are in the Postgres that goes down.
  store = await EventStore.create(t.nc, {
    stream: env.stream,
    subjectPrefix: env.subjectPrefix,
    catalogue: eventCatalogue,
    dataKeys: vault,
  });
}, 120_000);
afterAll(async () => {
  await database?.close();
  await postgres?.close();
  await t?.close();
});

const silent = { warn() {}, error() {} };

/** Order updates issued by the webhook reaction, by command id. */
const orderUpdates = new Map<string, number>();
const aggregates = {
  user: { state: async () => ({ state: { closed: false }, version: 1 }) },
  order: {
    execute: async (_orderId: string, _command: unknown, meta: { commandId: string }) => {
      orderUpdates.set(meta.commandId, (orderUpdates.get(meta.commandId) ?? 0) + 1);
    },
  },
} as unknown as Aggregates;

const append = (aggregate: AggregateName, id: string, events: NewEvent[], expectedSequence: number) =>
  store.append(aggregate, id, events, {
    commandId: randomUUID(),
    correlationId: randomUUID(),
    actor: systemActor,
    expectedSequence,
  });

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await sleep(200);
  }
}

/** A key as a process that never cached it reads it: null once destroyed. */
async function storedKey(keyId: string): Promise<Buffer | null | undefined> {
  const fresh = await openDataKeyVault(database.db as Kysely<unknown>, 'secrets', testDataEncryptionKey(env));
  return (await fresh.keysForReading(new Set([keyId]))).get(keyId);
}

/** Whether each reaction's consumer has delivered everything and had it all acknowledged. */
async function settled(reactions: Reaction[]): Promise<boolean> {
  for (const reaction of reactions) {
    const info = await store.jsm.consumers
      .info(env.stream, store.consumerName(`reaction_${reaction.name}`))
      .catch(() => null);
    if (!info || info.num_pending > 0 || info.num_ack_pending > 0) return false;
  }
  return true;
}

describe("the gateway's reactions while Postgres is down for longer than their retries", () => {
  it("do every event's work once when it is back: keys destroyed, order updates issued", async () => {
    const parking = new WatchedParking(
      database.db.withSchema('reactions') as unknown as Kysely<ReactionsDatabase>,
    );
    const reactions: Reaction[] = [
      new SessionKeyErasureReaction(aggregates, vault),
      new AccountErasureReaction(store, vault),
      new ProviderWebhookReaction(aggregates, database.db as unknown as Kysely<ReadModelDatabase>),
    ];
    const runners = reactions.map(
      (reaction) =>
        new ReactionRunner({
          store,
          reaction,
          logger: silent,
          parking,
          maxDeliveries: 3,
          retryParkedEveryMs: 200,
          databaseUrl: env.databaseUrl,
        }),
    );

    // Before the outage: an account with two sessions, another session, and two checkout orders.
    const userId = randomUUID();
    const registered = await append(
      'user',
      userId,
      [{ type: 'UserRegistered', data: { providerSubject: userId, email: null } }],
      0,
    );
    const sessions = [randomUUID(), randomUUID(), randomUUID()];
    const created = [];
    for (const sessionId of sessions) {
      const { sequence } = await append(
        'session',
        sessionId,
        [{ type: 'SessionCreated', data: { userId, title: `Boots ${sessionId}` } }],
        0,
      );
      created.push(sequence);
    }
    const providerOrders = [`po-${randomUUID()}`, `po-${randomUUID()}`];
    for (const providerOrderId of providerOrders) {
      await sql`INSERT INTO orders VALUES (${randomUUID()}, ${providerOrderId}, 'checkout')`.execute(
        database.db,
      );
    }
    const keys = [...sessions.map((id) => dataKeyIdFor('session', id)), dataKeyIdFor('user', userId)];
    for (const key of keys) expect(await storedKey(key)).toBeInstanceOf(Buffer);

    await Promise.all(runners.map((r) => r.start()));
    try {
      await until(() => settled(reactions), 'the events before the outage handled');
      await postgres.stop('fast');
      const recorded: number[] = [];
      // The first session is deleted on its own, the others with the account.
      recorded.push(
        (await append('session', sessions[0]!, [{ type: 'SessionDeleted', data: {} }], created[0]!)).sequence,
      );
      recorded.push(
        (
          await append(
            'user',
            userId,
            [{ type: 'AccountClosed', data: { by: 'user', sessionIds: sessions.slice(1) } }],
            registered.sequence,
          )
        ).sequence,
      );
      const webhookEvents: string[] = [];
      for (const providerOrderId of providerOrders) {
        const delivery = {
          eventType: 'orders.payment.succeeded',
          actionId: null,
          providerOrderId,
          phase: null,
          payment: null,
          quote: null,
          failureReason: null,
        };
        const received = await append(
          'provider-webhook',
          randomUUID(),
          [{ type: 'ProviderWebhookReceived', data: delivery }],
          0,
        );
        recorded.push(received.sequence);
        webhookEvents.push(received.events[0]!.id);
      }
      // Each message ran out of attempts and could not be parked.
      await until(() => recorded.every((s) => parking.failed.has(s)), 'every park failed during the outage');
      await postgres.start();

      for (const key of keys) {
        await until(async () => (await storedKey(key)) === null, `key ${key} destroyed`);
      }
      const updates = webhookEvents.map((id) => `order-update:${id}`);
      await until(() => updates.every((id) => orderUpdates.has(id)), 'every order update issued');
      await until(
        async () => (await Promise.all(reactions.map((r) => parking.parked(r.name)))).flat().length === 0,
        'nothing left parked',
      );
      expect(updates.map((id) => orderUpdates.get(id))).toEqual([1, 1]);
    } finally {
      await postgres.start();
      await Promise.all(runners.map((r) => r.stop()));
    }
  }, 240_000);
});
