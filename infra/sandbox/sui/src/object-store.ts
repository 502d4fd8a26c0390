import type { ObjectOwner } from '@mysten/sui/client';
import { DELETED_OBJECT_DIGEST, randomDigest } from './identifiers';

export interface StoredObject {
  objectId: string;
  version: bigint;
  digest: string;
  /** Full struct tag, e.g. `0x…::cart::Cart`. */
  type: string;
  owner: ObjectOwner;
  /** Content as the node renders `content.fields` (addresses as hex, u64 as strings, UID as {id}). */
  fields: Record<string, unknown>;
  /** Dynamic object fields of this object: name key (see `dynamicFieldKey`) to child object id. */
  children: Record<string, string>;
  storageCost: bigint;
  previousTransaction: string;
}

export interface Tombstone {
  objectId: string;
  version: bigint;
  digest: string;
}

export function dynamicFieldKey(type: string, value: string): string {
  return `${type}:${value}`;
}

/** Live objects and tombstones of deleted ones, at their latest version. */
export class ObjectStore {
  private readonly live = new Map<string, StoredObject>();
  private readonly deleted = new Map<string, Tombstone>();

  get(objectId: string): StoredObject | undefined {
    return this.live.get(objectId);
  }

  tombstone(objectId: string): Tombstone | undefined {
    return this.deleted.get(objectId);
  }

  all(): StoredObject[] {
    return [...this.live.values()];
  }

  put(object: StoredObject): void {
    this.deleted.delete(object.objectId);
    this.live.set(object.objectId, object);
  }

  remove(objectId: string, version: bigint): void {
    this.live.delete(objectId);
    this.deleted.set(objectId, { objectId, version, digest: DELETED_OBJECT_DIGEST });
  }
}

/**
 * A transaction's view of the store: reads fall through to the store, writes stay here until the
 * executor commits them, so an aborted call leaves the store untouched.
 */
export class ObjectSession {
  private readonly touched = new Map<string, StoredObject>();
  private readonly createdIds = new Set<string>();
  private readonly deletedIds = new Set<string>();
  /** Versions of every pre-existing object the transaction read, for the lamport version. */
  private readonly readVersions = new Map<string, bigint>();

  constructor(private readonly store: ObjectStore) {}

  /** The object as this transaction sees it, read-only; undefined when it does not exist. */
  read(objectId: string): Readonly<StoredObject> | undefined {
    if (this.deletedIds.has(objectId)) return undefined;
    const copy = this.touched.get(objectId);
    if (copy) return copy;
    const original = this.store.get(objectId);
    if (original) this.readVersions.set(objectId, original.version);
    return original;
  }

  /** A private copy to change; the object is then written (mutated) by the transaction. */
  modify(objectId: string): StoredObject | undefined {
    if (this.deletedIds.has(objectId)) return undefined;
    const copy = this.touched.get(objectId);
    if (copy) return copy;
    const original = this.read(objectId);
    if (!original) return undefined;
    const clone = structuredClone(original);
    this.touched.set(objectId, clone);
    return clone;
  }

  create(
    object: Omit<StoredObject, 'version' | 'digest' | 'storageCost' | 'previousTransaction'>,
  ): StoredObject {
    const stored: StoredObject = {
      ...object,
      version: 0n,
      digest: randomDigest(),
      storageCost: 0n,
      previousTransaction: '',
    };
    this.touched.set(object.objectId, stored);
    this.createdIds.add(object.objectId);
    return stored;
  }

  delete(objectId: string): void {
    if (!this.read(objectId)) throw new Error(`delete of missing object ${objectId}`);
    this.touched.delete(objectId);
    if (this.createdIds.delete(objectId)) return;
    this.deletedIds.add(objectId);
  }

  /** Objects created, objects that existed before and were touched (mutated), and deletions. */
  changes(): {
    created: StoredObject[];
    mutated: StoredObject[];
    deleted: string[];
    readVersions: Map<string, bigint>;
  } {
    const created: StoredObject[] = [];
    const mutated: StoredObject[] = [];
    for (const object of this.touched.values()) {
      (this.createdIds.has(object.objectId) ? created : mutated).push(object);
    }
    return { created, mutated, deleted: [...this.deletedIds], readVersions: this.readVersions };
  }
}
