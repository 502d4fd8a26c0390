import { randomBytes } from 'node:crypto';
import { Kysely, Selectable } from 'kysely';
import { DataKeysTable, migrateSchema, SecretsDatabase, secretsMigrations } from '@shop/db';
import { DataKeyDestroyedError, DataKeys } from '@shop/eventstore';
import { open, seal } from './aes-gcm';
import { LruMap } from './lru-map';

const KEY_BYTES = 32;
/** Rows one insert of new keys carries at most. */
const MAX_KEYS_PER_INSERT = 1000;

interface QueuedKey {
  resolve(key: Buffer | null): void;
  reject(error: unknown): void;
}

/**
 * The data keys of personal data, one per subject, wrapped under the master key (bound to their
 * id as GCM associated data) in the never-rebuilt secrets schema. Keys are created on first use
 * and cached in a bounded LRU; destroying one keeps a tombstone so the subject stays erased.
 */
export class DataKeyVault implements DataKeys {
  private readonly cache: LruMap<string, Buffer | null>;
  private readonly creating = new Map<string, Promise<Buffer | null>>();
  /** First uses waiting for the insert in flight to finish; the next insert carries all of them. */
  private readonly queued = new Map<string, QueuedKey>();
  private inserting = false;

  constructor(
    private readonly db: Kysely<SecretsDatabase>,
    private readonly masterKey: Buffer,
    cacheSize = 10_000,
  ) {
    this.cache = new LruMap(cacheSize);
  }

  async keyForWriting(keyId: string): Promise<Buffer> {
    const cached = this.cache.get(keyId);
    if (cached) return cached;
    if (cached === null) throw new DataKeyDestroyedError(keyId);
    // Concurrent first writes of one subject in this process share one key.
    let flight = this.creating.get(keyId);
    if (!flight) {
      flight = new Promise<Buffer | null>((resolve, reject) => {
        this.queued.set(keyId, { resolve, reject });
        this.insertQueued();
      }).finally(() => this.creating.delete(keyId));
      this.creating.set(keyId, flight);
    }
    const key = await flight;
    if (!key) throw new DataKeyDestroyedError(keyId);
    return key;
  }

  /**
   * One insert at a time, of every key queued meanwhile: a first use alone waits one round trip,
   * and many new subjects at once share round trips (and the commit's flush) instead of each
   * queueing for a connection.
   */
  private insertQueued(): void {
    if (this.inserting || this.queued.size === 0) return;
    const batch = [...this.queued].slice(0, MAX_KEYS_PER_INSERT);
    for (const [keyId] of batch) this.queued.delete(keyId);
    this.inserting = true;
    this.createOrLoad(batch.map(([keyId]) => keyId))
      .then(
        (keys) => {
          for (const [keyId, waiting] of batch) waiting.resolve(keys.get(keyId)!);
        },
        (error: unknown) => {
          for (const [, waiting] of batch) waiting.reject(error);
        },
      )
      .finally(() => {
        this.inserting = false;
        this.insertQueued();
      });
  }

  /**
   * One statement: inserts a new key for each id, or returns the stored row (a live key or a
   * tombstone) when there is one. Committed before the caller publishes anything sealed under
   * them, so no stored ciphertext ever lacks its key. Processes racing on one subject all get the
   * first insert's key.
   */
  private async createOrLoad(keyIds: readonly string[]): Promise<Map<string, Buffer | null>> {
    const material = randomBytes(KEY_BYTES * keyIds.length);
    const made = new Map<string, { key: Buffer; ciphertext: Buffer }>();
    const rows = await this.db
      .insertInto('data_keys')
      .values(
        keyIds.map((keyId, i) => {
          const key = material.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES);
          const sealed = seal(this.masterKey, key.toString('hex'), keyId);
          made.set(keyId, { key, ciphertext: sealed.ciphertext });
          return { key_id: keyId, ciphertext: sealed.ciphertext, iv: sealed.iv, auth_tag: sealed.authTag };
        }),
      )
      .onConflict((oc) => oc.column('key_id').doUpdateSet((eb) => ({ key_id: eb.ref('data_keys.key_id') })))
      .returningAll()
      .execute();
    const keys = new Map<string, Buffer | null>();
    for (const row of rows) {
      const mine = made.get(row.key_id)!;
      // A row this insert wrote holds the key made here; one stored before is unwrapped.
      const key = row.ciphertext?.equals(mine.ciphertext) ? mine.key : this.unwrap(row);
      this.cache.set(row.key_id, key);
      keys.set(row.key_id, key);
    }
    return keys;
  }

  async keysForReading(keyIds: ReadonlySet<string>): Promise<ReadonlyMap<string, Buffer | null>> {
    const found = new Map<string, Buffer | null>();
    const missing: string[] = [];
    for (const id of keyIds) {
      const cached = this.cache.get(id);
      if (cached === undefined) missing.push(id);
      else found.set(id, cached);
    }
    if (missing.length === 0) return found;
    const rows = await this.db.selectFrom('data_keys').selectAll().where('key_id', 'in', missing).execute();
    for (const row of rows) {
      const key = this.unwrap(row);
      this.cache.set(row.key_id, key);
      found.set(row.key_id, key);
    }
    return found;
  }

  private unwrap(row: Selectable<DataKeysTable>): Buffer | null {
    if (row.destroyed_at || !row.ciphertext || !row.iv || !row.auth_tag) return null;
    const sealed = { ciphertext: row.ciphertext, iv: row.iv, authTag: row.auth_tag };
    return Buffer.from(open(this.masterKey, sealed, row.key_id), 'hex');
  }

  /** Erases every personal field ever sealed under `keyId`; idempotent, and final. */
  async destroy(keyId: string): Promise<void> {
    await this.db
      .insertInto('data_keys')
      .values({ key_id: keyId, ciphertext: null, iv: null, auth_tag: null, destroyed_at: new Date() })
      .onConflict((oc) =>
        oc.column('key_id').doUpdateSet((eb) => ({
          ciphertext: null,
          iv: null,
          auth_tag: null,
          destroyed_at: eb.fn.coalesce('data_keys.destroyed_at', eb.val(new Date())),
        })),
      )
      .execute();
    this.cache.set(keyId, null);
  }
}

/** The vault over `schema`, migrated first: every process that seals or opens personal data opens one. */
export async function openDataKeyVault(
  db: Kysely<unknown>,
  schema: string,
  masterKey: Buffer,
): Promise<DataKeyVault> {
  await migrateSchema(db, schema, secretsMigrations);
  return new DataKeyVault(db.withSchema(schema) as unknown as Kysely<SecretsDatabase>, masterKey);
}
