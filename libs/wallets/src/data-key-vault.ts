import { randomBytes } from 'node:crypto';
import { Kysely, Selectable } from 'kysely';
import { DataKeysTable, migrateSchema, SecretsDatabase, secretsMigrations } from '@shop/db';
import { DataKeyDestroyedError, DataKeys } from '@shop/eventstore';
import { open, seal } from './aes-gcm';
import { LruMap } from './lru-map';

/**
 * The data keys of personal data, one per subject, wrapped under the master key (bound to their
 * id as GCM associated data) in the never-rebuilt secrets schema. Keys are created on first use
 * and cached in a bounded LRU; destroying one keeps a tombstone so the subject stays erased.
 */
export class DataKeyVault implements DataKeys {
  private readonly cache: LruMap<string, Buffer | null>;
  private readonly creating = new Map<string, Promise<Buffer | null>>();

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
    // Concurrent first writes of one subject in this process share one round trip.
    let flight = this.creating.get(keyId);
    if (!flight) {
      flight = this.createOrLoad(keyId).finally(() => this.creating.delete(keyId));
      this.creating.set(keyId, flight);
    }
    const key = await flight;
    if (!key) throw new DataKeyDestroyedError(keyId);
    return key;
  }

  /**
   * One statement: inserts a new key, or returns the stored row (a live key or a tombstone) when
   * there is one. Committed before the caller publishes anything sealed under it, so no stored
   * ciphertext ever lacks its key. Processes racing on one subject all get the first insert's key.
   */
  private async createOrLoad(keyId: string): Promise<Buffer | null> {
    const sealed = seal(this.masterKey, randomBytes(32).toString('hex'), keyId);
    const row = await this.db
      .insertInto('data_keys')
      .values({ key_id: keyId, ciphertext: sealed.ciphertext, iv: sealed.iv, auth_tag: sealed.authTag })
      .onConflict((oc) => oc.column('key_id').doUpdateSet((eb) => ({ key_id: eb.ref('data_keys.key_id') })))
      .returningAll()
      .executeTakeFirstOrThrow();
    const key = this.unwrap(row);
    this.cache.set(keyId, key);
    return key;
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
