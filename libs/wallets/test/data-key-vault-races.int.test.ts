import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretsDatabase } from '@shop/db';
import { DataKeyDestroyedError, openValue, sealValue } from '@shop/eventstore';
import { dropSchema, testEnvironment } from '@shop/testing';
import { DataKeyVault, openDataKeyVault } from '../src/data-key-vault';

const env = testEnvironment('datakeyraces');
const schema = env.env.SECRETS_SCHEMA!;
const masterKey = randomBytes(32);
let pool: pg.Pool;
let db: Kysely<unknown>;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: env.databaseUrl, max: 8 });
  db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  await openDataKeyVault(db, schema, masterKey);
});
afterAll(async () => {
  await db.destroy();
  await dropSchema(env);
});

/** What happens to one statement: nothing, refused before it reaches Postgres, or its answer lost after it ran. */
type Fault = 'none' | 'before' | 'after';

class InjectedFault extends Error {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A vault whose first statements fail as `faults` say, in turn (then none does), each answer
 * arriving after a delay. The faults are the connection's, so they fall on every statement the
 * vault sends, however it built it.
 */
function faultyVault(faults: readonly Fault[], delays: readonly number[]): DataKeyVault {
  let n = 0;
  const faultyPool = {
    async connect() {
      const client = await pool.connect();
      return {
        async query(text: string, values: unknown[]) {
          const i = n++;
          if (faults[i] === 'before') throw new InjectedFault('refused before the statement ran');
          const result: unknown = await client.query(text, values);
          await sleep(delays[i % delays.length]!);
          if (faults[i] === 'after') throw new InjectedFault('the answer was lost');
          return result;
        },
        release: (error?: Error) => client.release(error),
      };
    },
    end: () => Promise.resolve(),
  } as unknown as pg.Pool;
  const faulty = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: faultyPool }) });
  return new DataKeyVault(faulty.withSchema(schema) as unknown as Kysely<SecretsDatabase>, masterKey);
}

/** An erasure is retried until it is answered, as the operator's command would be. */
async function destroyUntilAnswered(vault: DataKeyVault, keyId: string): Promise<void> {
  for (;;) {
    try {
      return await vault.destroy(keyId);
    } catch (error) {
      if (!(error instanceof InjectedFault)) throw error;
    }
  }
}

type Step =
  | { kind: 'write'; subject: number; vault: number; delay: number }
  | { kind: 'destroy'; subject: number; delay: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('write' as const),
      subject: fc.nat(2),
      vault: fc.nat(1),
      delay: fc.nat(4),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('destroy' as const), subject: fc.nat(2), delay: fc.nat(4) }),
  },
);

interface Published {
  keyId: string;
  eventId: string;
  value: string;
  sealed: ReturnType<typeof sealValue>;
}

describe('data key vault under races and faults', () => {
  it('publishes only under committed keys, and a destroyed subject stays destroyed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 14 }),
        fc.array(fc.constantFrom<Fault>('none', 'none', 'before', 'after'), { minLength: 1, maxLength: 8 }),
        fc.array(fc.constantFrom<Fault>('none', 'none', 'before', 'after'), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(8), { minLength: 1, maxLength: 8 }),
        async (steps, faultsA, faultsB, delays) => {
          // Two vaults stand for two processes; each statement of theirs may fail before or after it ran.
          const vaults = [faultyVault(faultsA, delays), faultyVault(faultsB, [...delays].reverse())];
          const keyIds = Array.from({ length: 3 }, () => `user:${randomUUID()}`);
          const published: Published[] = [];
          /** When each subject's destroy was first answered, and which vault answered it. */
          const destroyed = new Map<string, { vault: DataKeyVault; at: number }>();
          const destroyIssued = new Set<string>();
          let clock = 0;
          const refusedAfterDestroy: string[] = [];

          const write = async (keyId: string, vault: DataKeyVault) => {
            // A command retries a write whose key could not be had, as a caller would after "unavailable".
            for (let attempt = 0; attempt < 3; attempt++) {
              const askedAt = ++clock;
              try {
                const key = await vault.keyForWriting(keyId);
                const before = destroyed.get(keyId);
                if (before && before.vault === vault && before.at < askedAt) refusedAfterDestroy.push(keyId);
                const eventId = randomUUID();
                const value = `words of ${keyId} #${published.length}`;
                published.push({
                  keyId,
                  eventId,
                  value,
                  sealed: sealValue(key, keyId, eventId, 'text', value),
                });
                return;
              } catch (error) {
                if (error instanceof DataKeyDestroyedError) return;
                if (!(error instanceof InjectedFault)) throw error;
              }
            }
          };
          const destroy = async (keyId: string) => {
            destroyIssued.add(keyId);
            const vault = vaults[0]!;
            await destroyUntilAnswered(vault, keyId);
            if (!destroyed.has(keyId)) destroyed.set(keyId, { vault, at: ++clock });
          };

          await Promise.all(
            steps.map(async (s) => {
              await sleep(s.delay);
              const keyId = keyIds[s.subject]!;
              if (s.kind === 'write') await write(keyId, vaults[s.vault]!);
              else await destroy(keyId);
            }),
          );

          const reader = await openDataKeyVault(db, schema, masterKey);
          const stored = await reader.keysForReading(new Set(keyIds));
          for (const p of published) {
            // Every ciphertext names a key the vault holds (or held, for a destroyed subject).
            expect(stored.has(p.keyId)).toBe(true);
            const key = stored.get(p.keyId)!;
            if (key === null) expect(destroyIssued.has(p.keyId)).toBe(true);
            else expect(openValue(key, p.eventId, 'text', p.sealed)).toBe(p.value);
          }
          for (const keyId of destroyed.keys()) {
            expect(stored.get(keyId)).toBeNull();
            await expect(reader.keyForWriting(keyId)).rejects.toBeInstanceOf(DataKeyDestroyedError);
          }
          expect(refusedAfterDestroy).toEqual([]);
        },
      ),
      { numRuns: 80 },
    );
  }, 120_000);

  it('a destroy answered while the first insert of its key is in flight is final in that process', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(10),
        fc.nat(10),
        fc.constantFrom<Fault>('none', 'after'),
        async (insertAnswerDelay, destroyAfter, insertFault) => {
          const vault = faultyVault([insertFault], [insertAnswerDelay, 0, 0, 0, 0, 0]);
          const keyId = `session:${randomUUID()}`;
          const first = vault.keyForWriting(keyId).catch((error: unknown) => error);
          await sleep(destroyAfter);
          // The fault may fall on the destroy instead, whose answer can come first; it is retried until answered.
          while (
            !(await vault.destroy(keyId).then(
              () => true,
              () => false,
            ))
          );
          await expect(vault.keyForWriting(keyId)).rejects.toBeInstanceOf(DataKeyDestroyedError);
          await first;
          await expect(vault.keyForWriting(keyId)).rejects.toBeInstanceOf(DataKeyDestroyedError);
          const reader = await openDataKeyVault(db, schema, masterKey);
          expect((await reader.keysForReading(new Set([keyId]))).get(keyId)).toBeNull();
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
