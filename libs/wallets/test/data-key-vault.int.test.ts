import { randomBytes, randomUUID } from 'node:crypto';
import { Kysely, KyselyPlugin, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretsDatabase } from '@shop/db';
import { DataKeyDestroyedError } from '@shop/eventstore';
import { dropSchema, testEnvironment } from '@shop/testing';
import { DataKeyVault, openDataKeyVault } from '../src/data-key-vault';

const env = testEnvironment('datakeys');
const schema = env.env.SECRETS_SCHEMA!;
const masterKey = randomBytes(32);
let pool: pg.Pool;
let db: Kysely<unknown>;
let queries = 0;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: env.databaseUrl, max: 4 });
  db = new Kysely({ dialect: new PostgresDialect({ pool }), log: () => void queries++ });
});
afterAll(async () => {
  await db.destroy();
  await dropSchema(env);
});

const ids = (n: number) => Array.from({ length: n }, () => `user:${randomUUID()}`);
const vaultWithCapacity = (capacity: number) =>
  new DataKeyVault(db.withSchema(schema) as unknown as Kysely<SecretsDatabase>, masterKey, capacity);

describe('data key vault', () => {
  it('creates a key on first use, once, even when first uses race', async () => {
    // Two vaults stand for two processes; each also races with itself.
    const vaults = [await openDataKeyVault(db, schema, masterKey), vaultWithCapacity(10)];
    const id = ids(1)[0]!;
    const keys = await Promise.all(Array.from({ length: 8 }, (_, i) => vaults[i % 2]!.keyForWriting(id)));
    expect(keys[0]).toHaveLength(32);
    for (const key of keys) expect(key.equals(keys[0]!)).toBe(true);
    const fresh = await openDataKeyVault(db, schema, masterKey);
    expect((await fresh.keysForReading(new Set([id]))).get(id)!.equals(keys[0]!)).toBe(true);
  });

  it('creates the keys of many first uses at once in one insert', async () => {
    const writer = await openDataKeyVault(db, schema, masterKey);
    const batch = ids(50);
    const before = queries;
    const keys = await Promise.all(batch.map((id) => writer.keyForWriting(id)));
    expect(queries - before).toBe(1);
    expect(new Set(keys.map((k) => k.toString('hex'))).size).toBe(50);
    const fresh = await openDataKeyVault(db, schema, masterKey);
    const stored = await fresh.keysForReading(new Set(batch));
    batch.forEach((id, i) => expect(stored.get(id)!.equals(keys[i]!)).toBe(true));
    // The batch's keys and wrapping nonces come from one draw: no nonce repeats or overlaps a key.
    const rows = await (db.withSchema(schema) as unknown as Kysely<SecretsDatabase>)
      .selectFrom('data_keys')
      .select('iv')
      .where('key_id', 'in', batch)
      .execute();
    const nonces = rows.map((row) => row.iv!);
    expect(nonces.every((nonce) => nonce.length === 12)).toBe(true);
    expect(new Set(nonces.map((nonce) => nonce.toString('hex'))).size).toBe(50);
    for (const nonce of nonces) expect(keys.some((key) => key.includes(nonce))).toBe(false);
  });

  it('first uses that come while a key insert is in flight share the next insert', async () => {
    let releaseFirst!: () => void;
    const firstAnswered = new Promise<void>((resolve) => (releaseFirst = resolve));
    let statements = 0;
    const held: KyselyPlugin = {
      transformQuery: ({ node }) => node,
      async transformResult({ result }) {
        if (statements++ === 0) await firstAnswered;
        return result;
      },
    };
    const writer = new DataKeyVault(
      db.withSchema(schema).withPlugin(held) as unknown as Kysely<SecretsDatabase>,
      masterKey,
    );
    const [first, ...later] = ids(21);
    const keys = [writer.keyForWriting(first!)];
    for (const id of later) {
      // Each in a turn of its own, as commands arrive.
      await new Promise((resolve) => setImmediate(resolve));
      keys.push(writer.keyForWriting(id));
    }
    releaseFirst();
    expect(new Set((await Promise.all(keys)).map((k) => k.toString('hex'))).size).toBe(21);
    expect(statements).toBe(2);
  });

  it('loads the keys of a batch in one round trip, then serves them from its cache', async () => {
    const writer = await openDataKeyVault(db, schema, masterKey);
    const batch = ids(50);
    for (const id of batch) await writer.keyForWriting(id);
    const reader = vaultWithCapacity(100);
    const before = queries;
    const loaded = await reader.keysForReading(new Set(batch));
    expect(queries - before).toBe(1);
    expect([...loaded.values()].every((k) => k?.length === 32)).toBe(true);
    await reader.keysForReading(new Set(batch));
    expect(queries - before).toBe(1);
  });

  it('keeps at most its capacity of keys cached', async () => {
    const writer = await openDataKeyVault(db, schema, masterKey);
    const batch = ids(12);
    for (const id of batch) await writer.keyForWriting(id);
    const reader = vaultWithCapacity(5);
    await reader.keysForReading(new Set(batch));
    const before = queries;
    await reader.keysForReading(new Set(batch.slice(-5)));
    expect(queries - before).toBe(0);
    await reader.keysForReading(new Set(batch.slice(0, 1)));
    expect(queries - before).toBe(1);
  });

  it('a destroyed key reads as null everywhere and is never created again', async () => {
    const vault = await openDataKeyVault(db, schema, masterKey);
    const other = await openDataKeyVault(db, schema, masterKey);
    const [used, unused] = ids(2) as [string, string];
    await vault.keyForWriting(used);
    await vault.destroy(used);
    await vault.destroy(used);
    await vault.destroy(unused);
    for (const id of [used, unused]) {
      expect((await other.keysForReading(new Set([id]))).get(id)).toBeNull();
      await expect(other.keyForWriting(id)).rejects.toBeInstanceOf(DataKeyDestroyedError);
    }
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM ${schema}.data_keys WHERE key_id = ANY($1) AND ciphertext IS NOT NULL`,
      [[used, unused]],
    );
    expect(rows[0].n).toBe(0);
  });

  it('a key destroyed by another process stops opening here once its re-check is due; a tombstone is not asked again', async () => {
    const recheckMs = 200;
    const eraser = await openDataKeyVault(db, schema, masterKey);
    const reader = new DataKeyVault(
      db.withSchema(schema) as unknown as Kysely<SecretsDatabase>,
      masterKey,
      100,
      recheckMs,
    );
    const writer = vaultWithCapacity(100);
    const [read, written] = ids(2) as [string, string];
    await writer.keyForWriting(read);
    expect((await reader.keysForReading(new Set([read]))).get(read)).toHaveLength(32);
    await reader.keyForWriting(written);

    await eraser.destroy(read);
    await eraser.destroy(written);
    await expect
      .poll(async () => (await reader.keysForReading(new Set([read]))).get(read), { timeout: recheckMs * 20 })
      .toBeNull();
    await expect
      .poll(
        () =>
          reader.keyForWriting(written).then(
            () => 'opens',
            (error: unknown) => error,
          ),
        {
          timeout: recheckMs * 20,
        },
      )
      .toBeInstanceOf(DataKeyDestroyedError);

    await new Promise((r) => setTimeout(r, recheckMs));
    const before = queries;
    expect((await reader.keysForReading(new Set([read]))).get(read)).toBeNull();
    await expect(reader.keyForWriting(written)).rejects.toBeInstanceOf(DataKeyDestroyedError);
    expect(queries - before).toBe(0);
  });

  it('refuses to unwrap a key under another master key', async () => {
    const id = ids(1)[0]!;
    await (await openDataKeyVault(db, schema, masterKey)).keyForWriting(id);
    const wrong = await openDataKeyVault(db, schema, randomBytes(32));
    await expect(wrong.keysForReading(new Set([id]))).rejects.toThrow();
  });

  it('caches a key, created or read from storage, in 32 bytes of its own, not in a slab of the shared buffer pool', async () => {
    // A small Buffer decoded from a string is a slice of an 8 KiB pool slab, which stays alive as
    // long as any slice of it does: a cache of 10,000 such keys can pin 80 MiB outside the heap.
    const stored = ids(20);
    const writer = await openDataKeyVault(db, schema, masterKey);
    const created = await Promise.all(stored.map((id) => writer.keyForWriting(id)));
    for (const key of created) expect(key.buffer.byteLength).toBe(32);
    const reader = await openDataKeyVault(db, schema, masterKey);
    const keys = await reader.keysForReading(new Set(stored));
    for (const key of keys.values()) expect(key!.buffer.byteLength).toBe(32);
  });
});
