import { JetStreamClient, KV } from 'nats';
import { z } from 'zod';
import { AggregateName, dataKeyIdFor, sealedValueSchema } from '@shop/contracts';
import { DataKeyDestroyedError, DataKeys } from './data-keys';
import { openValue, sealValue } from './personal-data-cipher';
import { snapshotBucketConfig, StreamDefinitionError, streamDifferences } from './stream-definition';

/**
 * An aggregate's folded state at a version, as the decider runner stores it to load from later.
 * Never the source of truth: whatever is wrong with one (another schema, a corrupt body, an
 * erased key) makes the runner fold the stream instead.
 */
export interface StoredSnapshot {
  /** The aggregate's snapshotVersion when it was taken: another one is ignored. */
  schema: number;
  /** The stream sequence of the last commit folded into it. */
  version: number;
  /** The runner's encoding of the state and the command ids it remembers, plain JSON. */
  body: unknown;
}

/** Where aggregate snapshots are kept: one per aggregate instance, the latest. */
export interface SnapshotStore {
  /** The latest snapshot, or null when there is none or it can no longer be opened (erased). */
  read(aggregate: AggregateName, id: string): Promise<StoredSnapshot | null>;
  write(aggregate: AggregateName, id: string, snapshot: StoredSnapshot): Promise<void>;
}

const storedSchema = z.strictObject({
  schema: z.number().int(),
  version: z.number().int().positive(),
  body: z.unknown().optional(),
  sealed: sealedValueSchema.optional(),
});

/** The aggregates whose state holds personal data: their snapshots are sealed under the owner's data key. */
function dataKeyOf(aggregate: AggregateName, id: string): string | null {
  try {
    return dataKeyIdFor(aggregate, id);
  } catch {
    return null;
  }
}

/** KV keys allow `[-/=.\w]`; aggregate ids `[\w:-]`, so `:` is written as `=`, which no id holds. */
const keyOf = (aggregate: AggregateName, id: string) => `${aggregate}.${id.replaceAll(':', '=')}`;

/** Binds a sealed snapshot to its instance and version, so none can stand in for another. */
const associatedId = (aggregate: AggregateName, id: string, version: number) =>
  `snapshot:${aggregate}:${id}:${version}`;

/**
 * Snapshots in a JetStream key-value bucket beside the event stream (`<stream>_snapshots`,
 * history 1). The state of an aggregate that holds personal data (user, memory, session) is
 * sealed under the same data key as its events, so erasing the owner makes its snapshot
 * unreadable, and it is ignored like a missing one.
 */
export class KvSnapshotStore implements SnapshotStore {
  private kv: Promise<KV> | null = null;

  constructor(
    private readonly js: JetStreamClient,
    readonly bucket: string,
    private readonly dataKeys: DataKeys | null,
    private readonly replicas: number,
    private readonly stream: string,
    private readonly subjectPrefix: string,
  ) {}

  /**
   * Binds to the bucket and checks its stream is what the services depend on (snapshotBucketConfig,
   * and no republish, mirror, source or seal); a writer starts only then. A bucket that republished
   * its keys into the event stream would append an event for whoever writes a snapshot.
   */
  async verify(): Promise<void> {
    this.kv = null;
    await this.bucketView();
  }

  async read(aggregate: AggregateName, id: string): Promise<StoredSnapshot | null> {
    const entry = await (await this.bucketView()).get(keyOf(aggregate, id));
    if (!entry || entry.operation !== 'PUT' || entry.length === 0) return null;
    const stored = storedSchema.parse(entry.json());
    if (!stored.sealed) return { schema: stored.schema, version: stored.version, body: stored.body };
    const keyId = dataKeyOf(aggregate, id);
    if (!this.dataKeys || keyId === null || stored.sealed.kid !== keyId) return null;
    const key = (await this.dataKeys.keysForReading(new Set([keyId]))).get(keyId);
    if (!key) return null;
    const body = openValue(key, associatedId(aggregate, id, stored.version), null, stored.sealed);
    return { schema: stored.schema, version: stored.version, body };
  }

  async write(aggregate: AggregateName, id: string, snapshot: StoredSnapshot): Promise<void> {
    const keyId = dataKeyOf(aggregate, id);
    let stored: z.infer<typeof storedSchema> = snapshot;
    if (keyId !== null) {
      // Without keys, or once the owner is erased, nothing is kept.
      if (!this.dataKeys) return;
      let key: Buffer;
      try {
        key = await this.dataKeys.keyForWriting(keyId);
      } catch (error) {
        if (error instanceof DataKeyDestroyedError) return;
        throw error;
      }
      const sealed = sealValue(
        key,
        keyId,
        associatedId(aggregate, id, snapshot.version),
        null,
        snapshot.body,
      );
      stored = { schema: snapshot.schema, version: snapshot.version, sealed };
    }
    await (await this.bucketView()).put(keyOf(aggregate, id), JSON.stringify(stored));
  }

  /**
   * Binds to the bucket on first use, checking its settings (see verify): only the processes that
   * run commands touch it, so a reader's NATS user needs no right on it. None creates it (the
   * operator step does, provisionEventStream): one missing or changed fails every snapshot, and
   * the stream is folded instead, until the operator step has put it back.
   */
  private bucketView(): Promise<KV> {
    this.kv ??= this.boundView();
    const kv = this.kv;
    kv.catch(() => {
      if (this.kv === kv) this.kv = null;
    });
    return kv;
  }

  private async boundView(): Promise<KV> {
    let kv: KV;
    try {
      kv = await this.js.views.kv(this.bucket, { bindOnly: true });
    } catch (error) {
      if (/stream not found/i.test(String((error as Error).message))) {
        throw new StreamDefinitionError(`KV_${this.bucket}`, []);
      }
      throw error;
    }
    const { streamInfo } = await kv.status();
    const wanted = snapshotBucketConfig({
      stream: this.stream,
      subjectPrefix: this.subjectPrefix,
      replicas: this.replicas,
    });
    const differences = streamDifferences(streamInfo.config, wanted);
    if (differences.length > 0) throw new StreamDefinitionError(`KV_${this.bucket}`, differences);
    return kv;
  }
}
