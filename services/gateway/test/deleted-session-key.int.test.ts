import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataKeyIdFor, NewEvent, systemActor } from '@shop/contracts';
import {
  createDatabase,
  DatabaseHandle,
  migrateSchema,
  ReactionsDatabase,
  reactionsMigrations,
} from '@shop/db';
import { PostgresReactionParking, ReactionRunner } from '@shop/reactions';
import {
  dropSchema,
  openTestEventStore,
  testDataEncryptionKey,
  testEnvironment,
  TestEventStore,
} from '@shop/testing';
import { DataKeyVault, openDataKeyVault } from '@shop/wallets';
import type { Aggregates } from '@shop/commands';
import { SessionKeyErasureReaction } from '../src/sessions/session-key-erasure.reaction';

/**
 * DELETE /api/sessions/:id records SessionDeleted, then destroys the session's key. Whatever
 * happens after the record (the request's destroy fails, the process dies, the reaction's own
 * destroys fail before or after their effect, the reacting process dies mid-retry), the key
 * ends up destroyed, and no other session's key is touched.
 */

const env = testEnvironment('sessionkey');
let t: TestEventStore;
let database: DatabaseHandle;
let parking: PostgresReactionParking;
let vault: DataKeyVault;

beforeAll(async () => {
  t = await openTestEventStore(env);
  database = createDatabase(env.databaseUrl, { max: 4 });
  const reactionsSchema = env.env.REACTIONS_SCHEMA!;
  await migrateSchema(database.db as Kysely<unknown>, reactionsSchema, reactionsMigrations);
  parking = new PostgresReactionParking(
    database.db.withSchema(reactionsSchema) as unknown as Kysely<ReactionsDatabase>,
  );
  vault = await openVault();
});
afterAll(async () => {
  await database?.close();
  await t?.close();
  await dropSchema(env);
});

const openVault = () =>
  openDataKeyVault(database.db as Kysely<unknown>, env.env.SECRETS_SCHEMA!, testDataEncryptionKey(env));

/** A fault of one destroy: it fails before reaching storage, or after its effect (the answer lost). */
type Fault = 'before' | 'after';

/** The reacting process's vault, whose destroys fail as told, key by key. */
class FaultyKeys {
  readonly faults = new Map<string, Fault[]>();
  readonly attempts = new Map<string, number>();

  async destroy(keyId: string): Promise<void> {
    this.attempts.set(keyId, (this.attempts.get(keyId) ?? 0) + 1);
    const fault = this.faults.get(keyId)?.shift();
    if (fault === 'before') throw new Error('secrets database unreachable');
    await vault.destroy(keyId);
    if (fault === 'after') throw new Error('the answer was lost');
  }
}

const keys = new FaultyKeys();

/** Every session's owner is an open account here: only the deletion erases. */
const openOwners = {
  user: { state: async () => ({ state: { closed: false }, version: 1 }) },
} as unknown as Aggregates;

/** One gateway process's runner of the reaction, with a small delivery limit so faults park it. */
async function startReacting(): Promise<ReactionRunner> {
  const runner = new ReactionRunner({
    store: t.store,
    reaction: new SessionKeyErasureReaction(openOwners, keys),
    logger: { warn() {}, error() {} },
    parking,
    maxDeliveries: 2,
    retryParkedEveryMs: 100,
    databaseUrl: env.databaseUrl,
  });
  await runner.start();
  return runner;
}

const append = (sessionId: string, events: NewEvent[], expectedSequence: number) =>
  t.store.append('session', sessionId, events, {
    commandId: randomUUID(),
    correlationId: randomUUID(),
    actor: systemActor,
    expectedSequence,
  });

/** A session with a sealed title, so its key exists; the sequence of its commit. */
async function createdSession(userId: string): Promise<{ sessionId: string; version: number }> {
  const sessionId = randomUUID();
  const { sequence } = await append(
    sessionId,
    [{ type: 'SessionCreated', data: { userId, title: `Boots ${sessionId}` } }],
    0,
  );
  return { sessionId, version: sequence };
}

/** A key as a process that never cached it reads it: null once destroyed. */
async function keyFromStorage(keyId: string): Promise<Buffer | null | undefined> {
  const fresh = await openVault();
  return (await fresh.keysForReading(new Set([keyId]))).get(keyId);
}

/** Polls storage until the key reads destroyed, or the bound passes (the assertion then fails). */
async function destroyedWithin(keyId: string, boundMs: number): Promise<Buffer | null | undefined> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const key = await keyFromStorage(keyId);
    if (key === null || Date.now() > deadline) return key;
    await sleep(50);
  }
}

const scenario = fc.record({
  /** What the request did after recording the deletion. */
  request: fc.constantFrom('died' as const, 'destroy failed' as const, 'destroyed' as const),
  reactionFaults: fc.array(fc.constantFrom<Fault>('before', 'after'), { maxLength: 3 }),
  /** When a reacting process dies and another takes over. */
  restart: fc.constantFrom(
    'none' as const,
    'before the deletion' as const,
    'after its first attempt' as const,
  ),
});

describe("a deleted session's key", () => {
  it('is destroyed by the reaction to SessionDeleted whatever failed or died after the deletion was recorded', async () => {
    let runner = await startReacting();
    try {
      await fc.assert(
        fc.asyncProperty(scenario, async ({ request, reactionFaults, restart }) => {
          const userId = randomUUID();
          const kept = await createdSession(userId);
          const deleted = await createdSession(userId);
          const keyId = dataKeyIdFor('session', deleted.sessionId);
          expect(await keyFromStorage(keyId)).toBeInstanceOf(Buffer);
          keys.faults.set(keyId, [...reactionFaults]);

          if (restart === 'before the deletion') await runner.stop();
          await append(deleted.sessionId, [{ type: 'SessionDeleted', data: {} }], deleted.version);
          if (request === 'destroyed') await vault.destroy(keyId);
          // 'died' and 'destroy failed' leave storage as it was: only the record exists.
          if (restart === 'before the deletion') runner = await startReacting();
          if (restart === 'after its first attempt') {
            for (let i = 0; i < 1500 && (keys.attempts.get(keyId) ?? 0) === 0; i++) await sleep(20);
            await runner.stop();
            runner = await startReacting();
          }

          expect(await destroyedWithin(keyId, 30_000)).toBeNull();
          expect(await keyFromStorage(dataKeyIdFor('session', kept.sessionId))).toBeInstanceOf(Buffer);
        }),
        {
          numRuns: 8,
          examples: [
            [{ request: 'died', reactionFaults: [], restart: 'before the deletion' }],
            [{ request: 'destroy failed', reactionFaults: ['before', 'after', 'before'], restart: 'none' }],
            [{ request: 'died', reactionFaults: ['before', 'before'], restart: 'after its first attempt' }],
          ],
        },
      );
    } finally {
      await runner.stop();
    }
  }, 300_000);
});
