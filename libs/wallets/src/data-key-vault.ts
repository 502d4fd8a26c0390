import { randomBytes } from 'node:crypto';
import { CompiledQuery, Kysely, sql } from 'kysely';
import { migrateSchema, SecretsDatabase, secretsMigrations } from '@shop/db';
import { DataKeyDestroyedError, DataKeys } from '@shop/eventstore';
import { open, seal } from './aes-gcm';
import { LruMap } from './lru-map';

const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Rows one insert of new keys carries at most. */
const MAX_KEYS_PER_INSERT = 1000;
/**
 * Inserts of new keys running at once. One: each insert is a round trip whose client side (the
 * socket write and the answer's parsing) costs more CPU than its keys, so first uses arriving
 * while it runs wait to share the next one. Measured with staggered first uses, one insert in
 * flight instead of four cut CPU per key by a quarter with no longer wait: the commit's flush
 * dominates the wait, and Postgres shares it among concurrent commits anyway.
 */
const MAX_INSERTS_IN_FLIGHT = 1;
/**
 * How long a live key is taken from memory before its row is asked again. Another process's
 * destroy reaches this one only through the row, so this bounds how long a destroyed key still
 * opens data here (docs/operations.md, Erasure); a destroyed key is final and never asked again.
 */
export const DATA_KEY_RECHECK_MS = 5_000;

/** A key as this process last read it; `key` null is a tombstone. */
interface CachedKey {
  key: Buffer | null;
  at: number;
}

interface NewDataKey {
  key_id: string;
  ciphertext: Buffer;
  iv: Buffer;
  auth_tag: Buffer;
}

interface QueuedKey {
  resolve(key: Buffer | null): void;
  reject(error: unknown): void;
}

/**
 * The data keys of personal data, one per subject, wrapped under the master key (bound to their
 * id as GCM associated data) in the never-rebuilt secrets schema. Keys are created on first use
 * and cached in a bounded LRU, a live one for at most `recheckMs`; destroying one keeps a
 * tombstone so the subject stays erased.
 */
export class DataKeyVault implements DataKeys {
  private readonly cache: LruMap<string, CachedKey>;
  private readonly creating = new Map<string, Promise<Buffer | null>>();
  /** First uses not yet in an insert; the next insert carries all of them. */
  private readonly queued = new Map<string, QueuedKey>();
  private flushScheduled = false;
  private inserting = 0;
  /**
   * The insert of new keys, compiled once: built and compiled per batch, it cost more CPU than
   * the round trip itself, and bursts of first uses come in many small batches.
   */
  private readonly insertKeysSql: string;

  constructor(
    private readonly db: Kysely<SecretsDatabase>,
    private readonly masterKey: Buffer,
    cacheSize = 10_000,
    private readonly recheckMs = DATA_KEY_RECHECK_MS,
  ) {
    this.cache = new LruMap(cacheSize);
    this.insertKeysSql = insertKeysQuery(db).compile().sql;
  }

  async keyForWriting(keyId: string): Promise<Buffer> {
    const cached = this.cached(keyId);
    if (cached) return cached;
    if (cached === null) throw new DataKeyDestroyedError(keyId);
    // Concurrent first writes of one subject in this process share one key.
    let flight = this.creating.get(keyId);
    if (!flight) {
      flight = new Promise<Buffer | null>((resolve, reject) => {
        this.queued.set(keyId, { resolve, reject });
        this.scheduleInsert();
      }).finally(() => this.creating.delete(keyId));
      this.creating.set(keyId, flight);
    }
    const key = await flight;
    if (!key) throw new DataKeyDestroyedError(keyId);
    return key;
  }

  /**
   * First uses of one turn of the event loop share one insert, started at the end of that turn;
   * first uses queued while MAX_INSERTS_IN_FLIGHT inserts run share the next free insert.
   */
  private scheduleInsert(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    queueMicrotask(() => {
      this.flushScheduled = false;
      this.insertQueued();
    });
  }

  private insertQueued(): void {
    while (this.inserting < MAX_INSERTS_IN_FLIGHT && this.queued.size > 0) {
      const batch = [...this.queued].slice(0, MAX_KEYS_PER_INSERT);
      for (const [keyId] of batch) this.queued.delete(keyId);
      this.inserting++;
      this.createOrLoad(batch.map(([keyId]) => keyId))
        .then(
          (keys) => {
            for (const [keyId, waiting] of batch) waiting.resolve(keys.get(keyId) ?? null);
          },
          (error: unknown) => {
            for (const [, waiting] of batch) waiting.reject(error);
          },
        )
        .finally(() => {
          this.inserting--;
          this.insertQueued();
        });
    }
  }

  /**
   * Inserts a new key for each id, committed before the caller publishes anything sealed under
   * it, so no stored ciphertext ever lacks its key. An id that has a row already (another
   * process's key, or a tombstone) keeps it: the insert skips it and its row is read instead, in
   * a second round trip only then. Processes racing on one subject all get the first insert's key.
   */
  private async createOrLoad(keyIds: readonly string[]): Promise<Map<string, Buffer | null>> {
    // One draw of randomness for the whole batch: every key and the nonce it is wrapped under.
    const material = randomBytes((KEY_BYTES + NONCE_BYTES) * keyIds.length);
    const made = new Map<string, Buffer>();
    const ciphertexts: Buffer[] = [];
    const ivs: Buffer[] = [];
    const tags: Buffer[] = [];
    keyIds.forEach((keyId, i) => {
      const at = i * (KEY_BYTES + NONCE_BYTES);
      const key = material.subarray(at, at + KEY_BYTES);
      const iv = material.subarray(at + KEY_BYTES, at + KEY_BYTES + NONCE_BYTES);
      const sealed = seal(this.masterKey, key.toString('hex'), keyId, iv);
      // Cached on its own: a view would keep the whole batch's keys and nonces alive with it.
      made.set(keyId, Buffer.from(new Uint8Array(key).buffer));
      ciphertexts.push(sealed.ciphertext);
      ivs.push(sealed.iv);
      tags.push(sealed.authTag);
    });
    const { rows } = await this.db.executeQuery(
      CompiledQuery.raw(this.insertKeysSql, [keyIds, ciphertexts, ivs, tags]) as CompiledQuery<{
        key_id: string;
      }>,
    );
    const keys = new Map<string, Buffer | null>();
    for (const { key_id } of rows) keys.set(key_id, made.get(key_id)!);
    const stored = keyIds.filter((keyId) => !keys.has(keyId));
    if (stored.length > 0) for (const [keyId, key] of await this.loadStored(stored)) keys.set(keyId, key);
    for (const [keyId, key] of keys) keys.set(keyId, this.remember(keyId, key));
    return keys;
  }

  /**
   * Caches what the vault answered for `keyId`, unless a destroy in this process has cached the
   * tombstone meanwhile: a destroyed key is final, so a key an earlier insert returned is not
   * handed out after it.
   */
  private remember(keyId: string, key: Buffer | null): Buffer | null {
    if (this.cache.get(keyId)?.key === null) return null;
    this.cache.set(keyId, { key, at: performance.now() });
    return key;
  }

  /** The key this process knows, null for a tombstone; undefined when unknown or due a re-check. */
  private cached(keyId: string): Buffer | null | undefined {
    const entry = this.cache.get(keyId);
    if (!entry) return undefined;
    if (entry.key !== null && performance.now() - entry.at >= this.recheckMs) return undefined;
    return entry.key;
  }

  async keysForReading(keyIds: ReadonlySet<string>): Promise<ReadonlyMap<string, Buffer | null>> {
    const found = new Map<string, Buffer | null>();
    const missing: string[] = [];
    for (const id of keyIds) {
      const cached = this.cached(id);
      if (cached === undefined) missing.push(id);
      else found.set(id, cached);
    }
    if (missing.length === 0) return found;
    for (const [keyId, key] of await this.loadStored(missing)) found.set(keyId, this.remember(keyId, key));
    return found;
  }

  /**
   * The stored keys of these ids, unwrapped; null for a destroyed one. One array parameter, not
   * one per key: a rebuild's batch asks for hundreds. The wrapped key comes as one value, null
   * once destroyed: parsing three byte columns and two timestamps per row cost the client more
   * than unwrapping the key.
   */
  private async loadStored(keyIds: readonly string[]): Promise<Map<string, Buffer | null>> {
    const rows = await this.db
      .selectFrom('data_keys')
      .select([
        'key_id',
        sql<Buffer | null>`CASE WHEN destroyed_at IS NULL THEN iv || ciphertext || auth_tag END`.as(
          'wrapped',
        ),
      ])
      .where('key_id', '=', sql<string>`ANY(${keyIds})`)
      .execute();
    const keys = new Map<string, Buffer | null>();
    for (const { key_id, wrapped } of rows) {
      if (wrapped === null) {
        keys.set(key_id, null);
        continue;
      }
      const sealed = {
        iv: wrapped.subarray(0, NONCE_BYTES),
        ciphertext: wrapped.subarray(NONCE_BYTES, wrapped.length - TAG_BYTES),
        authTag: wrapped.subarray(wrapped.length - TAG_BYTES),
      };
      keys.set(key_id, ownedKey(open(this.masterKey, sealed, key_id)));
    }
    return keys;
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
    this.cache.set(keyId, { key: null, at: performance.now() });
  }
}

/**
 * Inserts new keys, skipping ids that have a row already, and returns the ids it inserted. unnest:
 * four array parameters whatever the batch's size, where VALUES would take four per key.
 */
function insertKeysQuery(db: Kysely<SecretsDatabase>) {
  const none: never[] = [];
  return db
    .insertInto('data_keys')
    .columns(['key_id', 'ciphertext', 'iv', 'auth_tag'])
    .expression((eb) =>
      eb
        .selectFrom(
          sql<NewDataKey>`unnest(${none}::text[], ${none}::bytea[], ${none}::bytea[], ${none}::bytea[])`.as(
            'new_keys',
          ),
        )
        .selectAll(),
    )
    .onConflict((oc) => oc.column('key_id').doNothing())
    .returning('key_id');
}

/**
 * A key decoded into 32 bytes of its own. Buffer.from(string) slices small buffers out of a
 * shared 8 KiB pool slab, which a cached key would keep alive whole.
 */
function ownedKey(hex: string): Buffer {
  const key = Buffer.alloc(KEY_BYTES);
  key.write(hex, 'hex');
  return key;
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
