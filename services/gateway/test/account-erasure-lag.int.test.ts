import { randomUUID } from 'node:crypto';
import { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Aggregates, CommandExecutor, DeciderRunner } from '@shop/commands';
import type { GatewayConfig } from '@shop/config';
import { dataKeyIdFor, NewEvent, systemActor } from '@shop/contracts';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { DomainError } from '@shop/domain';
import {
  PositionTracker,
  ProjectionRunner,
  ReadModelPositions,
  recreateSchema,
  type ConsistencyPositions,
} from '@shop/projections';
import { accountErasureFacts, readModel, readModelMigrations, readModelProjections } from '@shop/read-models';
import { statusOfDomainErrorKind } from '@shop/service-kit';
import {
  dropSchema,
  openTestEventStore,
  testDataEncryptionKey,
  testEnvironment,
  TestEventStore,
} from '@shop/testing';
import { openDataKeyVault } from '@shop/wallets';
import { CloseAccountHandler, CloseAccountCommand } from '../src/user/close-account.command';

/**
 * The gateway's own account closure (CloseAccountHandler) on a real stream and read model, with
 * the projector held back: the test decides when it runs, so "appended but not yet projected"
 * is a state it puts the system in, not a race it hopes to win.
 */

const env = testEnvironment('erasurelag');
let t: TestEventStore;
let database: DatabaseHandle;
let tracker: PositionTracker;
let runners: ProjectionRunner[];

beforeAll(async () => {
  t = await openTestEventStore(env);
  database = createDatabase(env.databaseUrl, { max: readModelProjections().length + 4 });
  await recreateSchema(database.db, env.schema, readModelMigrations);
  tracker = new PositionTracker(t.nc, database.db, env.schema, env.subjectPrefix);
  await tracker.start();
  runners = readModelProjections().map(
    (projection) =>
      new ProjectionRunner({
        store: t.store,
        db: database.db,
        databaseUrl: env.databaseUrl,
        schema: env.schema,
        projection,
      }),
  );
});
afterAll(async () => {
  tracker?.stop();
  await Promise.all((runners ?? []).map((r) => r.stop()));
  await database?.close();
  await t?.close();
  await dropSchema(env);
});

const projector = {
  start: () => runners.forEach((r) => r.start()),
  stop: () => Promise.all(runners.map((r) => r.stop())),
  /** Runs until the read models have applied the stream's head, then is held back. */
  async catchUpAndHold(): Promise<void> {
    projector.start();
    const head = await t.store.lastStreamSequence();
    await Promise.all(runners.map((r) => r.caughtUp(head)));
    await projector.stop();
  },
};

/** Tells the test when the closure has begun waiting for the read models. */
class WatchedPositions extends ReadModelPositions {
  private waiting: (() => void) | null = null;
  readonly waited = new Promise<void>((resolve) => (this.waiting = resolve));

  override waitUntilReadable(positions: ConsistencyPositions, timeoutMs: number): Promise<boolean> {
    this.waiting?.();
    return super.waitUntilReadable(positions, timeoutMs);
  }
}

function closeAccount(readModelBoundMs: number) {
  const projections = readModelProjections();
  const positions = new WatchedPositions(tracker, projections, 0);
  const aggregates = new Aggregates(new CommandExecutor(new DeciderRunner(t.store), positions));
  const handler = new CloseAccountHandler(
    aggregates,
    positions,
    t.store,
    readModel(database.db, env.schema),
    t.dataKeys,
    { CONSISTENT_READ_TIMEOUT_MS: readModelBoundMs } as GatewayConfig,
  );
  return { positions, close: (userId: string) => handler.execute(new CloseAccountCommand(userId)) };
}

const append = (aggregate: 'user' | 'session' | 'order', id: string, events: NewEvent[]) =>
  t.store.append(aggregate, id, events, {
    commandId: randomUUID(),
    correlationId: randomUUID(),
    actor: systemActor,
    expectedSequence: 0,
  });

async function registeredUser(): Promise<string> {
  const userId = randomUUID();
  await append('user', userId, [
    { type: 'UserRegistered', data: { providerSubject: `sub-${userId}`, email: `${userId}@example.com` } },
  ]);
  return userId;
}

const openOrder = (userId: string): NewEvent => ({
  type: 'OrderCreated',
  data: {
    userId,
    type: 'checkout',
    cartItemId: randomUUID(),
    providerOrderId: `po-${randomUUID()}`,
    phase: 'awaiting_approval',
    item: null,
    payment: null,
    quote: null,
    walletAddress: null,
    serializedTransaction: null,
  },
});

/** A key as a process that never cached it reads it: null once destroyed. */
async function keyFromStorage(keyId: string): Promise<Buffer | null | undefined> {
  const fresh = await openDataKeyVault(
    database.db as Kysely<unknown>,
    env.env.SECRETS_SCHEMA!,
    testDataEncryptionKey(env),
  );
  return (await fresh.keysForReading(new Set([keyId]))).get(keyId);
}

const eventTypesOf = async (userId: string) => (await t.store.load('user', userId)).events.map((e) => e.type);

describe('closing an account while the projector lags', () => {
  it('an order appended and not yet projected keeps the account open', async () => {
    const userId = await registeredUser();
    await projector.catchUpAndHold();
    await append('order', randomUUID(), [openOrder(userId)]);
    // The rows as they stand say there is nothing open.
    expect((await accountErasureFacts(readModel(database.db, env.schema), userId)).openOrder).toBe(false);

    const { positions, close } = closeAccount(60_000);
    const closing = close(userId);
    // Released once the closure waits for the read models (or has already decided without them).
    await Promise.race([positions.waited, closing.catch(() => undefined)]);
    projector.start();
    const refused = await closing.then(
      () => null,
      (error: unknown) => error,
    );
    await projector.stop();

    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ kind: 'conflict', code: 'ORDER_OPEN' });
    expect(await eventTypesOf(userId)).not.toContain('AccountClosed');
    expect(await keyFromStorage(dataKeyIdFor('user', userId))).toBeInstanceOf(Buffer);
  });

  it("a session appended and not yet projected has its key destroyed with the account's", async () => {
    const userId = await registeredUser();
    await projector.catchUpAndHold();
    const sessionId = randomUUID();
    await append('session', sessionId, [{ type: 'SessionCreated', data: { userId, title: 'Rain jackets' } }]);
    const sessionKey = dataKeyIdFor('session', sessionId);
    expect(await keyFromStorage(sessionKey)).toBeInstanceOf(Buffer);
    expect((await accountErasureFacts(readModel(database.db, env.schema), userId)).sessionIds).toEqual([]);

    const { positions, close } = closeAccount(60_000);
    const closing = close(userId);
    // Released once the closure waits for the read models (or has already decided without them).
    await Promise.race([positions.waited, closing.catch(() => undefined)]);
    projector.start();
    const result = await closing;
    await projector.stop();

    expect(result).toEqual({ sessions: 1 });
    const { events } = await t.store.load('user', userId);
    expect(events.at(-1)).toMatchObject({ type: 'AccountClosed', data: { sessionIds: [sessionId] } });
    expect(await keyFromStorage(sessionKey)).toBeNull();
    expect(await keyFromStorage(dataKeyIdFor('user', userId))).toBeNull();
  });

  it('answers READ_MODEL_BEHIND (503) and decides nothing when the projector cannot catch up within the bound', async () => {
    const userId = await registeredUser();
    await projector.catchUpAndHold();
    const sessionId = randomUUID();
    await append('session', sessionId, [{ type: 'SessionCreated', data: { userId, title: 'Boots' } }]);

    // The projector stays held back: no bound is long enough, so the answer does not depend on one.
    const refused = await closeAccount(200)
      .close(userId)
      .then(
        () => null,
        (error: unknown) => error,
      );

    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ kind: 'unavailable', code: 'READ_MODEL_BEHIND' });
    expect(statusOfDomainErrorKind[(refused as DomainError).kind]).toBe(503);
    expect(await eventTypesOf(userId)).not.toContain('AccountClosed');
    expect(await keyFromStorage(dataKeyIdFor('session', sessionId))).toBeInstanceOf(Buffer);
    expect(await keyFromStorage(dataKeyIdFor('user', userId))).toBeInstanceOf(Buffer);
  });
});
