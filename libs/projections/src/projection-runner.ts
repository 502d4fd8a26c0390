import { setTimeout as sleep } from 'node:timers/promises';
import { AckPolicy, ConsumerMessages, DeliverPolicy, JsMsg, nanos } from 'nats';
import {
  AggregateName,
  aggregateWildcard,
  parseSubject,
  partitionFilter,
  RecordedEvent,
} from '@shop/contracts';
import {
  consumerDifferences,
  dropForeignDelivery,
  EventStore,
  RawCommit,
  takeOwnDeliveriesOnly,
} from '@shop/eventstore';
import { BatchApplier, BatchItem, BatchOutcome, CheckpointMovedError } from './batch-applier';
import { CatchUpReads } from './catch-up-reads';
import { decodeBatchItems } from './decode-batch-items';
import { checkpointSubject, consumerNameFor } from './checkpoint-subject';
import { preparePartitionCheckpoint } from './partition-checkpoints';
import { AnyKysely, AnyProjection } from './projection';
import { ownConnectionLock, RunnerLock } from './runner-lock';
import { isTransientError } from './transient-error';
import { tracedApply } from './traced-apply';
import { WriteMode } from './write-rows';

export interface RunnerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ProjectionRunnerOptions {
  store: EventStore;
  db: AnyKysely;
  /** For the session-level advisory lock that keeps one active runner per projection. */
  databaseUrl: string;
  /** The lock to hold while running; by default one on a connection of the runner's own. */
  lock?: RunnerLock;
  schema: string;
  projection: AnyProjection;
  /** Messages per batch while caught up (today's latency: what arrived while the last one was written). */
  batchSize?: number;
  /**
   * Messages per batch while behind by more than four live batches: read from the stream by
   * the projection's aggregates (ephemeral consumers, no acknowledgements) and written the bulk
   * way (see WriteMode), each batch with its checkpoint in one transaction as a live one.
   * 0: never; a runner behind then works through its consumer in live batches.
   */
  catchUpBatchSize?: number;
  /**
   * While caught up, a batch of one message the projection reads waits this long for company
   * (more messages to apply in the same transaction) before it is applied. 0: never waits.
   */
  batchWaitMs?: number;
  /**
   * Shared by the runners of a process: while behind, they read the stream once between them
   * (see CatchUpReads) instead of each its own aggregates.
   */
  catchUpReads?: CatchUpReads;
  maxAttempts?: number;
  /**
   * Each batch's commit waits for the WAL flush (the fsync a projection's consistency does not
   * need: see BatchApplier). Off by default: at a light load, where every command is a batch
   * of its own, the flush is most of what a write waits for before it is readable.
   */
  durableCommits?: boolean;
  logger?: RunnerLogger;
  onBatch?: (outcome: BatchOutcome, projection: string, batchSize: number, path: BatchPath) => void;
}

/** Which way a batch was read and written: from the consumer in live batches, or caught up in bulk. */
export type BatchPath = 'live' | 'catch-up';

const silent: RunnerLogger = { info() {}, warn() {}, error() {} };

/** How long the checkpoint row may trail batches that held nothing for the projection. */
const checkpointFlushMs = 1000;
/** Idle this long with such progress unwritten, the runner writes it. */
const idleFlushMs = 100;
/**
 * A pull waits this long for messages; the server sends them the moment they are appended, so a
 * long wait costs no latency, and an idle consumer re-pulls (and is answered 408) only this often.
 */
const pullExpiresMs = 30_000;
/**
 * While a pull waits, the server sends a heartbeat this often; two missed (a pull lost with a
 * stream leader) make the client check the consumer and pull again. Each heartbeat wakes the
 * process, so this is the price of noticing a lost pull within two of them.
 */
const pullHeartbeatMs = 5000;
/** How often a runner that refuses to apply looks at the checkpoint rows again. */
const refusalRetryMs = 5000;

/**
 * Keeps one projection up to date from its durable pull consumer. The Postgres checkpoint is
 * the only cursor: on every start or recovery the consumer is re-created at checkpoint + 1,
 * and messages must arrive contiguously, so a redelivery can never skip or repeat an event.
 * Messages that arrive while a batch is being written form the next batch: low latency when
 * idle, large batches under load.
 *
 * The consumer of an unpartitioned projection sees the whole stream (nats-server 2.9 allows one
 * filter subject, and the checkpoint is a stream sequence), but most messages belong to
 * aggregates the projection does not read. A batch of only those has no effect, so it costs no
 * transaction, no announcement and no acknowledgement of its own: the position moves in memory,
 * and the checkpoint row (with the acknowledgement and an announcement) follows with the next
 * batch that matters, after `idleFlushMs` of quiet, or at the latest after `checkpointFlushMs`.
 * A crash in between only re-reads messages without effect. At a light load, when each command
 * is a batch of its own, this is what keeps the projections that do not read it from costing a
 * round trip each.
 *
 * A partition's consumer is delivered only its partition's messages (its filter is the
 * partition's subjects: see partitionFilter), so the others' never reach it to move its
 * position: while idle it moves itself to the stream's end every `checkpointFlushMs` when no
 * message of its own lies in between (followStreamEnd), for the readers waiting for every
 * projection to reach the end (an account's erasure) and for the lag metrics.
 */
export class ProjectionRunner {
  private readonly batchSize: number;
  private readonly catchUpBatchSize: number;
  /** Behind by more than this many messages, the runner catches up in bulk. */
  private readonly catchUpAfter: number;
  private readonly batchWaitMs: number;
  /** Set when the consumer reported the runner behind: it leaves the consumer to catch up. */
  private fellBehind = false;
  private readonly applier: BatchApplier;
  private readonly logger: RunnerLogger;
  private position = -1;
  /** The checkpoint row's position, as this runner last wrote or read it. */
  private persisted = -1;
  private persistedAt = 0;
  /** The consumer's delivery sequence of the last message the position covers (see gapBefore). */
  private delivered = 0;
  private readonly aggregates: ReadonlySet<AggregateName>;
  /** The consumer's filter subject: the stream, or the partition's subjects. */
  private readonly filter: string;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private messages: ConsumerMessages | null = null;
  private readonly lock: RunnerLock;
  private lockHeld = false;
  private resetReason: string | null = null;
  /** Set while the checkpoint rows forbid applying (see preparePartitionCheckpoint). */
  private refusal: string | null = null;
  /** Claimed (see claim): the runner stops instead of waiting when it finds its lock taken. */
  private claimed = false;
  private stoppedByCall = false;
  private wake: (() => void) | null = null;
  private readonly waiters = new Set<{ sequence: number; resolve: () => void }>();
  /** The last message taken but not yet acknowledged, and how many are waiting with it. */
  private unacked: JsMsg | null = null;
  private unackedCount = 0;

  constructor(private readonly options: ProjectionRunnerOptions) {
    this.batchSize = options.batchSize ?? 500;
    this.catchUpBatchSize = options.catchUpBatchSize ?? 5000;
    this.catchUpAfter = this.batchSize * 4;
    this.batchWaitMs = options.batchWaitMs ?? 0;
    this.logger = options.logger ?? silent;
    this.applier = new BatchApplier(
      options.db,
      options.schema,
      options.projection,
      options.maxAttempts ?? 3,
      options.durableCommits,
    );
    this.lock =
      options.lock ?? ownConnectionLock(options.databaseUrl, options.schema, options.projection.name);
    this.aggregates = new Set(options.projection.aggregates);
    const { partition } = options.projection;
    const only = this.aggregates.size === 1 ? options.projection.aggregates[0] : undefined;
    this.filter = partition
      ? partitionFilter(options.store.subjectPrefix, only, partition.index, partition.count)
      : aggregateWildcard(options.store.subjectPrefix);
  }

  get name(): string {
    return this.options.projection.name;
  }

  get checkpoint(): number {
    return this.position;
  }

  /** Why the runner refuses to apply, while it does. */
  get refused(): string | null {
    return this.refusal;
  }

  /** Whether its loop runs: started and not stopped, or claimed and its lock not lost. */
  get running(): boolean {
    return this.loop !== null;
  }

  /** Stopped by a call to stop, not by losing its lock: it stays stopped until started again. */
  get halted(): boolean {
    return this.stoppedByCall;
  }

  /** Runs until stopped, waiting for the lock whenever another process holds it. */
  start(): void {
    if (this.loop) return;
    this.claimed = false;
    this.begin();
  }

  /**
   * Takes the lock now and runs while it holds it; false, without running, when another process
   * holds it. A claimed runner that loses its lock stops (see PartitionClaims).
   */
  async claim(): Promise<boolean> {
    if (this.loop) return true;
    if (!(await this.acquireLock())) return false;
    this.claimed = true;
    this.begin();
    return true;
  }

  private begin(): void {
    this.stopping = false;
    this.stoppedByCall = false;
    const loop = this.run().finally(() => {
      if (this.loop === loop) this.loop = null;
    });
    this.loop = loop;
  }

  /** Finishes the batch in hand, then stops consuming and releases the lock. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.stoppedByCall = true;
    this.messages?.stop();
    this.wake?.();
    // A window it waits for from the shared reads comes empty at once, not with the next round.
    this.options.catchUpReads?.leave(this);
    await this.loop;
    this.loop = null;
  }

  /** Resolves once the checkpoint has reached `sequence`. */
  caughtUp(sequence: number): Promise<void> {
    if (this.position >= sequence) return Promise.resolve();
    return new Promise((resolve) => this.waiters.add({ sequence, resolve }));
  }

  private async run(): Promise<void> {
    const { projection } = this.options;
    let backoff = 100;
    while (!this.stopping) {
      try {
        if (!(await this.acquireLock())) {
          if (this.claimed) break;
          await sleep(1000);
          continue;
        }
        this.refusal = await preparePartitionCheckpoint(this.options.db, this.options.schema, projection);
        if (this.refusal) {
          this.logger.error({ projection: this.name, reason: this.refusal }, 'projection refuses to apply');
          await this.releaseLock();
          await this.pause(refusalRetryMs);
          continue;
        }
        this.position = await this.applier.checkpoint();
        this.persisted = this.position;
        this.persistedAt = Date.now();
        this.notifyWaiters();
        this.unacked = null;
        this.unackedCount = 0;
        this.resetReason = null;
        this.fellBehind = false;
        await this.catchUp();
        if (this.stopping) break;
        if (!this.resetReason) {
          await this.recreateConsumer(this.position + 1);
          await this.consume();
        }
        backoff = 100;
        if (this.resetReason)
          this.logger.warn({ projection: this.name, reason: this.resetReason }, 'consumer reset');
      } catch (error) {
        this.logger.error(
          { projection: this.name, err: error },
          'projection runner error; restarting from checkpoint',
        );
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 5000);
      } finally {
        this.messages?.stop();
        this.messages = null;
      }
    }
    await this.releaseLock();
  }

  private async consume(): Promise<void> {
    const { store, projection } = this.options;
    const name = consumerNameFor(store, projection.name);
    const consumer = await store.js.consumers.get(store.stream, name);
    const messages = await consumer.consume({
      max_messages: this.batchSize * 2,
      expires: pullExpiresMs,
      idle_heartbeat: pullHeartbeatMs,
    });
    this.messages = messages;
    // Only its own consumer's deliveries: another user's push consumer aimed at the pull's inbox
    // (nats-server 2.9 lets any reader make one) is dropped before it reaches a batch.
    const own = { stream: store.stream, consumer: name, filter: this.filter };
    takeOwnDeliveriesOnly(messages, own, (message) =>
      dropForeignDelivery('projection', this.name, message, own, this.logger),
    );
    const buffer: JsMsg[] = [];
    let ended = false;
    const pump = (async () => {
      try {
        for await (const message of messages) {
          buffer.push(message);
          this.wake?.();
        }
      } finally {
        ended = true;
        this.wake?.();
      }
    })();

    while (!this.stopping && !this.resetReason) {
      if (buffer.length === 0) {
        if (ended) break;
        const unwritten = this.position > this.persisted;
        const follows = this.options.projection.partition !== undefined;
        const woken = await new Promise<boolean>((resolve) => {
          const idle = unwritten ? idleFlushMs : follows ? checkpointFlushMs : undefined;
          const timer = idle === undefined ? undefined : setTimeout(() => resolve(false), idle);
          this.wake = () => {
            clearTimeout(timer);
            resolve(true);
          };
        });
        this.wake = null;
        if (!woken && buffer.length === 0) {
          if (follows) await this.withRetry(() => this.followStreamEnd());
          await this.flushWithRetry();
        }
        continue;
      }
      if (this.batchWaitMs > 0 && buffer.length === 1 && this.reads(buffer[0]!.subject)) {
        await sleep(this.batchWaitMs);
      }
      const batch = buffer.splice(0, this.batchSize);
      await this.processWithRetry(batch);
      if (this.catchUpBatchSize > 0 && batch.length > 0 && batch.at(-1)!.info.pending > this.catchUpAfter) {
        this.fellBehind = true;
        break;
      }
    }
    messages.stop();
    await pump.catch(() => undefined);
    // A clean stop (or a switch to catching up) leaves the row where the runner got to; after
    // a reset the row is the truth.
    if ((this.stopping || this.fellBehind) && !this.resetReason)
      await this.flushCheckpoint().catch(() => undefined);
  }

  /**
   * While the stream's end is more than `catchUpAfter` messages ahead, reads on by windows of
   * the stream, each applied as one batch written in bulk, the checkpoint then standing at the
   * window's end (over other aggregates' messages too): with the process's other runners when
   * they share reads (catchUpShared), or alone (catchUpAlone).
   */
  private async catchUp(): Promise<void> {
    if (this.catchUpBatchSize <= 0) return;
    const shared = this.options.catchUpReads;
    if (!shared) return this.catchUpAlone();
    shared.join(this);
    try {
      await this.catchUpShared(shared);
    } finally {
      shared.leave(this);
    }
  }

  /**
   * Each aggregate the projection reads through a consumer filtered on it (only its messages,
   * where the projection's consumer is delivered every one), read to the window's end one after
   * the other (a reader left waiting while another is read misses its heartbeats and stalls),
   * then put in stream order. Each window aims at `catchUpBatchSize` of the projection's messages.
   */
  private async catchUpAlone(): Promise<void> {
    const { store, projection } = this.options;
    const { partition } = projection;
    const filters = [...this.aggregates].map((a) =>
      partition
        ? partitionFilter(store.subjectPrefix, a, partition.index, partition.count)
        : aggregateWildcard(store.subjectPrefix, a),
    );
    let window = this.catchUpBatchSize;
    while (!this.stopping && !this.resetReason) {
      const last = await store.lastStreamSequence();
      if (last - this.position <= this.catchUpAfter) return;
      // A remainder the consumer would take is read in this window: catching up ends at the end.
      const until = last - (this.position + window) <= this.catchUpAfter ? last : this.position + window;
      const raws: RawCommit[] = [];
      for (const filter of filters) {
        // A filtered read ends on a match at or past its end: its last match, if before `until`.
        const lastMatch = await store.lastSequence(filter);
        if (lastMatch <= this.position) continue;
        const end = Math.min(until, lastMatch);
        for await (const raw of store.readRaw(this.position + 1, end, filter)) raws.push(raw);
      }
      raws.sort((x, y) => x.sequence - y.sequence);
      const items = await this.decodeCaughtUp(raws);
      if (!(await this.settleCaughtUp(items, until))) return;
      const aimed = Math.round((window * this.catchUpBatchSize) / Math.max(1, items.length));
      window = Math.min(this.catchUpBatchSize * 16, Math.max(this.catchUpBatchSize, aimed));
    }
  }

  /**
   * Through the process's shared reads (CatchUpReads), in their rounds. The next window is asked
   * for before this one is written, so every member's next round is read and decoded here while
   * Postgres writes this one, as a rebuild overlaps its reading and writing.
   */
  private async catchUpShared(shared: CatchUpReads): Promise<void> {
    const { store, projection } = this.options;
    const { partition } = projection;
    // Asked with nothing awaited in between, so every member's next request is in before the
    // round that answers them all can start.
    const ask = (from: number) => {
      const asked = shared.read(this, {
        from,
        until: Number.MAX_SAFE_INTEGER,
        aggregates: this.aggregates,
        ...(partition ? { partition } : {}),
      });
      // Awaited on the next turn; a turn that ends first (a stop, a failed write) leaves it unread.
      asked.catch(() => undefined);
      return asked;
    };
    if ((await store.lastStreamSequence()) - this.position <= this.catchUpAfter) return;
    let next = ask(this.position + 1);
    while (!this.stopping && !this.resetReason) {
      const { items, through, end } = await next;
      if (this.stopping || this.resetReason) return;
      // Short of the end by what the consumer would take, it takes the rest.
      const more = end - through > this.catchUpAfter;
      if (more) next = ask(through + 1);
      if (!(await this.settleCaughtUp(items, through)) || !more) return;
    }
  }

  /**
   * Applies a caught-up window's messages, then moves the position over the rest of the window
   * (other aggregates' messages). False when the runner stops or resets meanwhile.
   */
  private async settleCaughtUp(items: readonly BatchItem[], through: number): Promise<boolean> {
    if (items.length > 0) await this.withRetry(() => this.applyCaughtUp(items));
    if (this.stopping || this.resetReason) return false;
    if (this.position < through) {
      this.position = through;
      await this.flushWithRetry();
    }
    this.notifyWaiters();
    return true;
  }

  /** The projection's messages read from its own consumers, decoded. */
  private async decodeCaughtUp(raws: readonly RawCommit[]): Promise<BatchItem[]> {
    const items: BatchItem[] = raws.map(({ sequence, subject }) => ({ sequence, subject, events: [] }));
    const toDecode = raws.flatMap((raw, i) => (this.reads(raw.subject) ? [i] : []));
    const decoded = await decodeBatchItems(
      this.options.store,
      toDecode.map((i) => raws[i]!),
    );
    toDecode.forEach((at, i) => (items[at] = decoded[i]!));
    return items;
  }

  /** One catch-up batch: the projection's messages in stream order. */
  private async applyCaughtUp(items: readonly BatchItem[]): Promise<void> {
    const fresh = items.filter((item) => item.sequence > this.position);
    if (fresh.length > 0) await this.applyBatch(fresh, [], 'bulk', 'catch-up');
  }

  private processWithRetry(batch: JsMsg[]): Promise<void> {
    return this.withRetry(() => this.process(batch));
  }

  private flushWithRetry(): Promise<void> {
    return this.withRetry(() => this.flushCheckpoint());
  }

  /** Writes the position reached through batches that needed no transaction, and acknowledges them. */
  private async flushCheckpoint(): Promise<void> {
    if (this.position <= this.persisted) return;
    await this.applier.advance(this.persisted, this.position);
    this.persisted = this.position;
    this.persistedAt = Date.now();
    this.ackTaken();
    // Announced too: a reader that must see everything up to the stream's head (an account's
    // erasure) waits for positions that only messages this projection skips have reached.
    const { store, projection } = this.options;
    store.nc.publish(checkpointSubject(store.subjectPrefix, projection.name), String(this.position));
  }

  /** Acknowledges every message taken so far (AckPolicy.All). */
  private ackTaken(): void {
    this.unacked?.ack();
    this.unacked = null;
    this.unackedCount = 0;
  }

  private async withRetry(work: () => Promise<void>): Promise<void> {
    let backoff = 100;
    for (;;) {
      try {
        await work();
        return;
      } catch (error) {
        if (error instanceof CheckpointMovedError) {
          this.resetReason = error.message;
          return;
        }
        if (!isTransientError(error) || this.stopping) throw error;
        this.logger.warn({ projection: this.name, err: error }, 'transient failure; retrying batch');
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 5000);
      }
    }
  }

  private async process(batch: JsMsg[]): Promise<void> {
    const { store } = this.options;
    const items: BatchItem[] = [];
    const taken: JsMsg[] = [];
    const toDecode: number[] = [];
    for (const message of batch) {
      if (message.seq <= this.position) {
        message.ack();
        continue;
      }
      const gap = this.gapBefore(message, items.length);
      if (gap) {
        // Out of order means a redelivery overtook the stream: start again from the checkpoint.
        this.resetReason = gap;
        break;
      }
      taken.push(message);
      // Another aggregate's commit has nothing for this projection: not even worth decoding.
      if (this.reads(message.subject)) toDecode.push(items.length);
      items.push({ sequence: message.seq, subject: message.subject, events: [] });
    }
    if (items.length === 0) return;
    const decoded = await decodeBatchItems(
      store,
      toDecode.map((i) => ({
        sequence: items[i]!.sequence,
        subject: items[i]!.subject,
        data: taken[i]!.data,
      })),
    );
    toDecode.forEach((at, i) => (items[at] = decoded[i]!));

    if (
      !items.some((item) => this.reads(item.subject)) &&
      Date.now() - this.persistedAt < checkpointFlushMs
    ) {
      // Nothing to announce: a writer waits only for the projections reading its aggregate, and
      // this one reads none of these. The acknowledgement waits too (AckPolicy.All: a later one
      // covers these), for the next batch that matters, the idle flush, or a batch's worth.
      this.position = items.at(-1)!.sequence;
      this.delivered = taken.at(-1)!.info.deliverySequence;
      this.unacked = taken.at(-1)!;
      this.unackedCount += taken.length;
      if (this.unackedCount >= this.batchSize) this.ackTaken();
      this.notifyWaiters();
      return;
    }

    await this.applyBatch(items, taken, 'batch', 'live');
  }

  /**
   * Applies a batch with its checkpoint, then what follows its commit: caches, the
   * acknowledgement of `taken` (none on the catch-up path, which reads without a consumer of
   * its own), the announcement, the parked subjects' log lines.
   */
  private async applyBatch(
    items: readonly BatchItem[],
    taken: readonly JsMsg[],
    mode: WriteMode,
    path: BatchPath,
  ): Promise<void> {
    const { store, projection } = this.options;
    const outcome = await tracedApply(this.name, `${store.subjectPrefix}.>`, taken, () =>
      this.applier.apply(items, this.persisted, mode),
    );
    this.position = outcome.checkpoint;
    if (taken.length > 0) this.delivered = taken.at(-1)!.info.deliverySequence;
    this.persisted = outcome.checkpoint;
    this.persistedAt = Date.now();
    // Caches are invalidated before the checkpoint is announced: a writer waiting for its
    // commit must find no stale cache entry once it is told the commit is readable.
    if (projection.afterCommit && outcome.applied.length > 0) {
      await projection.afterCommit(outcome.applied as RecordedEvent[]).catch((error: unknown) => {
        this.logger.warn({ projection: this.name, err: error }, 'after-commit step failed');
      });
    }
    // AckPolicy.All: the last message acknowledges the batch. Sent with the announcement, in one write.
    if (taken.length > 0) {
      this.unacked = taken.at(-1)!;
      this.ackTaken();
    }
    store.nc.publish(checkpointSubject(store.subjectPrefix, projection.name), String(this.position));
    for (const parked of outcome.parked) {
      // The poison message's correlation id leads an operator to the request that caused it.
      const correlationId = items.find((item) => item.sequence === parked.sequence)?.events?.[0]
        ?.correlationId;
      this.logger.error(
        { projection: this.name, ...parked, correlationId },
        'subject parked after repeated failures',
      );
    }
    this.options.onBatch?.(outcome, this.name, items.length, path);
    this.notifyWaiters();
  }

  /**
   * A partition's consumer reads its partition's subjects only (this.filter), one filter subject
   * as nats-server 2.9 allows: the partition's hash bits are tokens of every event subject.
   * Re-created at the checkpoint on every start, so a consumer of an earlier filter (the whole
   * stream, before the partition was in the subjects) is replaced from where the row stands.
   */
  private async recreateConsumer(startSequence: number): Promise<void> {
    const { store, projection } = this.options;
    this.delivered = 0;
    const name = consumerNameFor(store, projection.name);
    const config = {
      durable_name: name,
      ack_policy: AckPolicy.All,
      filter_subject: this.filter,
      max_ack_pending: this.batchSize * 4,
      ack_wait: nanos(60_000),
      max_deliver: -1,
    };
    // Replaced whatever it is (the checkpoint is the only cursor); one changed by anything but a
    // runner of this projection is named, so the change does not go unnoticed.
    const existing = await store.jsm.consumers.info(store.stream, name).catch(() => null);
    const differences = existing ? consumerDifferences(existing.config, config) : [];
    if (differences.length > 0)
      this.logger.warn(
        { projection: this.name, consumer: name, differences, from: startSequence },
        'projection consumer differs from what its runner made it; re-creating it from the checkpoint',
      );
    await store.jsm.consumers.delete(store.stream, name).catch(() => undefined);
    await store.jsm.consumers.add(store.stream, {
      ...config,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: startSequence,
    });
  }

  private async acquireLock(): Promise<boolean> {
    if (this.lockHeld) return true;
    this.lockHeld = await this.lock.acquire(() => {
      if (!this.lockHeld) return;
      this.lockHeld = false;
      this.resetReason = 'advisory lock connection lost';
      this.messages?.stop();
      this.wake?.();
    });
    return this.lockHeld;
  }

  private async releaseLock(): Promise<void> {
    if (!this.lockHeld) return;
    this.lockHeld = false;
    await this.lock.release();
  }

  /**
   * Why `message`, the `taken`-th new one of its batch, cannot follow what the runner has taken,
   * or null. Over the whole stream each message's sequence follows the last; a partition's
   * consumer skips the other partitions' sequences, so there each first delivery follows the last
   * (the consumer's delivery sequence) and a redelivery past the position breaks the order.
   */
  private gapBefore(message: JsMsg, taken: number): string | null {
    if (!this.options.projection.partition) {
      const expected = this.position + 1 + taken;
      return message.seq === expected ? null : `expected sequence ${expected}, got ${message.seq}`;
    }
    const expected = this.delivered + 1 + taken;
    const { deliverySequence, redelivered } = message.info;
    return deliverySequence === expected && !redelivered
      ? null
      : `expected delivery ${expected}, got ${deliverySequence}${redelivered ? ' (a redelivery)' : ''}`;
  }

  /** Whether the subject is one of the projection's aggregates' (its partition's: the filter's). */
  private reads(subject: string): boolean {
    try {
      return this.aggregates.has(parseSubject(this.options.store.subjectPrefix, subject).aggregate);
    } catch {
      return false;
    }
  }

  /**
   * An idle partition moves to the stream's end when none of its own messages lies in between:
   * one that does is on its way to the consumer, which then moves the position itself.
   */
  private async followStreamEnd(): Promise<void> {
    const { store } = this.options;
    const end = await store.lastStreamSequence();
    if (end <= this.position) return;
    const next = await store.nextSequence(this.filter, this.position);
    if (next !== null && next <= end) return;
    this.position = end;
    this.notifyWaiters();
  }

  /** Waits `ms`, or less when stopped meanwhile. */
  private async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = null;
  }

  private notifyWaiters(): void {
    for (const waiter of this.waiters) {
      if (this.position >= waiter.sequence) {
        this.waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }
}
