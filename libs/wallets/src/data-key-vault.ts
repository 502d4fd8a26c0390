import { randomBytes } from 'node:crypto';
import { Kysely } from 'kysely';
import { migrateSchema, SecretsDatabase, secretsMigrations } from '@shop/db';
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

  constructor(
    private readonly db: Kysely<SecretsDatabase>,
    private readonly masterKey: Buffer,
    cacheSize = 10_000,
  ) {
    this.cache = new LruMap(cacheSize);
  }

  async keyForWriting(keyId: string): Promise<Buffer> {
    const known = this.cache.get(keyId) ?? (await this.keysForReading(new Set([keyId]))).get(keyId);
    if (known) return known;
    if (known === null) throw new DataKeyDestroyedError(keyId);
    const sealed = seal(this.masterKey, randomBytes(32).toString('hex'), keyId);
    // Concurrent first writers both generate; the first insert wins and both read it back.
    await this.db
      .insertInto('data_keys')
      .values({ key_id: keyId, ciphertext: sealed.ciphertext, iv: sealed.iv, auth_tag: sealed.authTag })
      .onConflict((oc) => oc.column('key_id').doNothing())
      .execute();
    this.cache.delete(keyId);
    const stored = (await this.keysForReading(new Set([keyId]))).get(keyId);
    if (!stored) throw new DataKeyDestroyedError(keyId);
    return stored;
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
      const key =
        row.destroyed_at || !row.ciphertext || !row.iv || !row.auth_tag
          ? null
          : Buffer.from(
              open(
                this.masterKey,
                { ciphertext: row.ciphertext, iv: row.iv, authTag: row.auth_tag },
                row.key_id,
              ),
              'hex',
            );
      this.cache.set(row.key_id, key);
      found.set(row.key_id, key);
    }
    return found;
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
