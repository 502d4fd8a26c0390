import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataKeyIdFor, eventCatalogue, NewEvent, systemActor } from '@shop/contracts';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { EventStore } from '@shop/eventstore';
import { catchUpProjections, rebuildProjections, recreateSchema, tableChecksums } from '@shop/projections';
import {
  dropSchema,
  openTestEventStore,
  testDataEncryptionKey,
  testEnvironment,
  TestEventStore,
} from '@shop/testing';
import { openDataKeyVault } from '@shop/wallets';
import { readModelMigrations } from '../src/read-model-migrations';
import { readModelProjections } from '../src/read-model-projections';

const env = testEnvironment('erasureprop');
const runs = Number(process.env.ERASURE_PROPERTY_RUNS ?? 10);
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

type Op =
  | { kind: 'name'; user: number }
  | { kind: 'session'; user: number; session: number }
  | { kind: 'message'; session: number }
  | { kind: 'rename'; session: number }
  | { kind: 'remember'; user: number }
  | { kind: 'deleteSession'; session: number }
  | { kind: 'closeAccount'; user: number }
  | { kind: 'project'; batchSize: number };

const users = 3;
const sessions = 4;
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('name' as const), user: fc.nat(users - 1) }),
  fc.record({
    kind: fc.constant('session' as const),
    user: fc.nat(users - 1),
    session: fc.nat(sessions - 1),
  }),
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('message' as const), session: fc.nat(sessions - 1) }),
  },
  fc.record({ kind: fc.constant('rename' as const), session: fc.nat(sessions - 1) }),
  fc.record({ kind: fc.constant('remember' as const), user: fc.nat(users - 1) }),
  fc.record({ kind: fc.constant('deleteSession' as const), session: fc.nat(sessions - 1) }),
  fc.record({ kind: fc.constant('closeAccount' as const), user: fc.nat(users - 1) }),
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('project' as const),
      batchSize: fc.integer({ min: 1, max: 7 }),
    }),
  },
);

/**
 * Random lives of a few users (names, sessions, messages, titles, memories, session deletions,
 * account closures) with the live projector catching up at random points and batch sizes. The
 * projector's key cache is its own and never hears of a destruction, as in production. After
 * all of it: no erased plaintext is in the raw stream, and a rebuild (another batch size, cold
 * keys) equals the live read model table by table.
 */
describe('erasure across projection and rebuild', () => {
  it('a rebuild after any interleaving of writes, erasures and projection equals the live read model', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 5, maxLength: 40 }),
        fc.integer({ min: 1, max: 50 }),
        async (ops, rebuildBatch) => {
          run++;
          const stream = `${env.stream}_P${run}`;
          const open = async (keys: 'writer' | 'projector' | 'rebuild') => {
            const store = await EventStore.create(t.nc, {
              stream,
              subjectPrefix: `${env.subjectPrefix}p${run}`,
              catalogue: eventCatalogue,
              dataKeys:
                keys === 'writer'
                  ? t.dataKeys
                  : await openDataKeyVault(
                      database.db as Kysely<unknown>,
                      env.env.SECRETS_SCHEMA!,
                      testDataEncryptionKey(env),
                    ),
            });
            return store;
          };
          const writer = await open('writer');
          await writer.provision();
          const projector = await open('projector');
          const live = `${env.schema}_live${run}`;
          const rebuilt = `${env.schema}_rb${run}`;
          await recreateSchema(database.db, live, readModelMigrations);
          const projections = readModelProjections();
          try {
            const userIds = Array.from({ length: users }, () => randomUUID());
            const sessionIds = Array.from({ length: sessions }, () => randomUUID());
            const registered = new Set<number>();
            const closed = new Set<number>();
            const owner = new Map<number, number>();
            const deleted = new Set<number>();
            const erased: string[] = [];
            const said = new Map<string, string[]>();
            const note = (keyId: string, text: string) => said.set(keyId, [...(said.get(keyId) ?? []), text]);
            const append = async (aggregate: 'user' | 'session' | 'memory', id: string, event: NewEvent) => {
              await writer.append(aggregate, id, [event], {
                commandId: randomUUID(),
                correlationId: 'property',
                actor: systemActor,
                expectedSequence: await writer.lastSequence(writer.subject(aggregate, id)),
              });
            };
            const ensureUser = async (user: number) => {
              if (registered.has(user)) return;
              const email = `${randomUUID().slice(0, 12)}@example.com`;
              note(`user:${userIds[user]}`, email);
              await append('user', userIds[user]!, {
                type: 'UserRegistered',
                data: { providerSubject: `p|${userIds[user]}`, email },
              });
              registered.add(user);
            };
            const words = () => `w${randomUUID().replace(/-/g, '').slice(0, 16)}`;

            for (const op of ops) {
              if ('user' in op && closed.has(op.user)) continue;
              const session = 'session' in op ? op.session : -1;
              if (op.kind !== 'session' && session >= 0 && (!owner.has(session) || deleted.has(session)))
                continue;
              const sessionKey = session >= 0 ? dataKeyIdFor('session', sessionIds[session]!) : '';
              switch (op.kind) {
                case 'name': {
                  await ensureUser(op.user);
                  const displayName = words();
                  note(`user:${userIds[op.user]}`, displayName);
                  await append('user', userIds[op.user]!, { type: 'DisplayNameSet', data: { displayName } });
                  break;
                }
                case 'session': {
                  if (owner.has(op.session)) break;
                  await ensureUser(op.user);
                  const title = words();
                  note(sessionKey, title);
                  owner.set(op.session, op.user);
                  await append('session', sessionIds[op.session]!, {
                    type: 'SessionCreated',
                    data: { userId: userIds[op.user]!, title },
                  });
                  break;
                }
                case 'message': {
                  const text = words();
                  note(sessionKey, text);
                  await append('session', sessionIds[session]!, {
                    type: 'ChatMessageAppended',
                    data: { messageId: randomUUID(), role: 'user', parts: [{ type: 'text', text }] },
                  });
                  break;
                }
                case 'rename': {
                  const title = words();
                  note(sessionKey, title);
                  await append('session', sessionIds[session]!, {
                    type: 'SessionRenamed',
                    data: { title, generated: false },
                  });
                  break;
                }
                case 'remember': {
                  await ensureUser(op.user);
                  const fact = words();
                  note(`user:${userIds[op.user]}`, fact);
                  await append('memory', userIds[op.user]!, {
                    type: 'PreferenceRemembered',
                    data: { fact, namespace: 'preferences', source: 'chat' },
                  });
                  break;
                }
                case 'deleteSession':
                  await append('session', sessionIds[session]!, { type: 'SessionDeleted', data: {} });
                  await t.dataKeys.destroy(sessionKey);
                  deleted.add(session);
                  erased.push(sessionKey);
                  break;
                case 'closeAccount': {
                  if (!registered.has(op.user)) break;
                  await append('user', userIds[op.user]!, {
                    type: 'AccountClosed',
                    data: { by: 'operator' },
                  });
                  const owned = [...owner].filter(([, u]) => u === op.user).map(([s]) => s);
                  for (const s of owned) {
                    const keyId = dataKeyIdFor('session', sessionIds[s]!);
                    await t.dataKeys.destroy(keyId);
                    erased.push(keyId);
                    deleted.add(s);
                  }
                  await t.dataKeys.destroy(`user:${userIds[op.user]}`);
                  erased.push(`user:${userIds[op.user]}`);
                  closed.add(op.user);
                  break;
                }
                case 'project':
                  await catchUpProjections({
                    store: projector,
                    db: database.db,
                    schema: live,
                    projections,
                    until: await writer.lastStreamSequence(),
                    batchSize: op.batchSize,
                  });
                  break;
              }
            }
            const last = await writer.lastStreamSequence();
            if (last === 0) return;
            await catchUpProjections({
              store: projector,
              db: database.db,
              schema: live,
              projections,
              until: last,
            });

            let raw = '';
            for await (const message of writer.readRaw()) raw += new TextDecoder().decode(message.data);
            for (const keyId of erased)
              for (const text of said.get(keyId) ?? []) expect(raw).not.toContain(text);

            await rebuildProjections({
              store: await open('rebuild'),
              db: database.db,
              schema: rebuilt,
              projections,
              migrations: readModelMigrations,
              batchSize: rebuildBatch,
            });
            const tables = projections.flatMap((p) => p.tables);
            expect(await tableChecksums(database.db, rebuilt, tables)).toEqual(
              await tableChecksums(database.db, live, tables),
            );
          } finally {
            await writer.jsm.streams.delete(stream).catch(() => undefined);
            await writer.jsm.streams.delete(`KV_${writer.snapshots.bucket}`).catch(() => undefined);
            await database.pool.query(`DROP SCHEMA IF EXISTS ${live} CASCADE`);
            await database.pool.query(`DROP SCHEMA IF EXISTS ${rebuilt} CASCADE`);
          }
        },
      ),
      { numRuns: runs },
    );
  }, 240_000);
});
