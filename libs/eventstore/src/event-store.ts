import {
  AckPolicy,
  DeliverPolicy,
  Events,
  JetStreamClient,
  JetStreamManager,
  NatsConnection,
  nanos,
  NatsError,
  StoredMsg,
} from 'nats';
import {
  AggregateName,
  Commit,
  dataKeyIdFor,
  EventCatalogue,
  NewEvent,
  RecordedEvent,
  subjectFor,
} from '@shop/contracts';
import {
  buildCommit,
  CommitMetadata,
  commitKeyIds,
  encodeCommit,
  DecodeMode,
  parseCommit,
  recordCommit,
} from './commit-codec';
import { tracedPublish } from '@shop/tracing';
import { DataKeys } from './data-keys';
import { holdsPersonalData, sealEnvelope } from './personal-data-cipher';
import { EventStoreUnavailableError, WrongExpectedSequenceError } from './errors';
import { DeliveryLogger, dropForeignDelivery, OwnConsumer, ownDelivery } from './own-deliveries';
import { answerFlowControl, isStatus, ownInbox, stallWatch } from './push-delivery';
import { KvSnapshotStore } from './snapshot-store';
import { PublishAcks } from './publish-acks';
import { provisionEventStream, ProvisionOutcome, streamInfoOrNull } from './provision-event-stream';
import {
  eventStreamConfig,
  snapshotBucketOf,
  StreamDefinitionError,
  streamDifferences,
} from './stream-definition';

export interface EventStoreOptions {
  stream: string;
  subjectPrefix: string;
  catalogue: EventCatalogue;
  replicas?: number;
  /** Publish acknowledgement deadline. */
  timeoutMs?: number;
  /**
   * The data keys personal fields are sealed and opened with. Without them the store writes no
   * personal data and reads every sealed field as erased (enough for ids and amounts).
   */
  dataKeys?: DataKeys;
  /**
   * The process's name as the owner of its durable consumers (`<owner>_<name>`): the NATS user
   * it runs under in infra/nats/nats-server.conf, whose rights name exactly those consumers.
   */
  owner?: string;
  /**
   * Where a read says it dropped messages another consumer pushed onto its inbox (see
   * own-deliveries); one JSON line on stderr without it.
   */
  logger?: DeliveryLogger;
}

export interface AppendOptions extends CommitMetadata {
  /** The subject's last sequence this commit was decided on; 0 means the subject must be empty. */
  expectedSequence: number;
}

export interface AppendResult {
  /** Stream sequence of the commit: the aggregate's new version. */
  sequence: number;
  /** True when the command id had been stored already; `events` are then the stored ones. */
  duplicate: boolean;
  events: RecordedEvent[];
}

/** How an append went, beside the events it stored. */
export interface AppendTiming {
  /** From the publish until JetStream acknowledged the commit as stored. */
  ackSeconds: number;
}

export type AppendListener = (events: readonly RecordedEvent[], timing: AppendTiming) => void;

export interface RawCommit {
  sequence: number;
  subject: string;
  data: Uint8Array;
}

export interface LoadedEvents {
  events: RecordedEvent[];
  /** Sequence of the subject's last commit, 0 for an empty subject. */
  version: number;
}

const WRONG_LAST_SEQUENCE = 10071;
const NO_MESSAGE_FOUND = 10037;
/** Past this many commits a load switches from per-message gets to a consumer. */
const DIRECT_READ_LIMIT = 32;
/** A read consumer's heartbeat; two missed while messages are known to exist mark it as stuck. */
const READ_HEARTBEAT_MS = 1000;
/** A read consumer nobody listens to any more is removed by the server after this long. */
const READ_INACTIVE_MS = 5000;
/** Consecutive consumers that deliver nothing before a read gives up as "unavailable". */
const READ_ATTEMPTS = 8;
/** Creating a read consumer takes milliseconds; one placed on a lost node never answers. */
const READ_CONSUMER_CREATE_TIMEOUT_MS = 2000;

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

function apiErrorCode(error: unknown): number | undefined {
  return (error as NatsError | undefined)?.api_error?.err_code;
}

function isUnavailable(error: unknown): boolean {
  const code = (error as NatsError | undefined)?.code;
  return (
    code === '503' || code === 'TIMEOUT' || code === 'CONNECTION_CLOSED' || code === 'CONNECTION_DRAINING'
  );
}

/** Append, load and read over one JetStream stream of commits. */
export class EventStore {
  readonly js: JetStreamClient;
  readonly stream: string;
  readonly subjectPrefix: string;
  readonly catalogue: EventCatalogue;
  readonly dataKeys: DataKeys | null;
  /** Aggregate snapshots, in the key-value bucket `<stream>_snapshots`: never the source of truth. */
  readonly snapshots: KvSnapshotStore;
  private readonly timeoutMs: number;
  private readonly appendListeners = new Set<AppendListener>();
  /** The prefix of this process's durable consumers' names (EventStoreOptions.owner). */
  readonly owner: string;
  /** Where its reads and followers log the deliveries they drop (EventStoreOptions.logger). */
  readonly deliveryLogger: DeliveryLogger | undefined;
  /** False between a disconnect and the reconnect: calls then fail at once instead of waiting out the timeout. */
  private connected = true;
  private readJsm: JetStreamManager | null = null;
  /** Made on the first append: a store that only reads subscribes to no acknowledgements. */
  private acks: PublishAcks | null = null;

  private constructor(
    readonly nc: NatsConnection,
    readonly jsm: JetStreamManager,
    private readonly options: EventStoreOptions,
  ) {
    this.js = nc.jetstream({ timeout: options.timeoutMs ?? 5000 });
    this.stream = options.stream;
    this.subjectPrefix = options.subjectPrefix;
    this.catalogue = options.catalogue;
    this.dataKeys = options.dataKeys ?? null;
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.owner = options.owner ?? 'local';
    this.deliveryLogger = options.logger;
    this.snapshots = new KvSnapshotStore(
      this.js,
      snapshotBucketOf(options.stream),
      this.dataKeys,
      options.replicas ?? 1,
      options.stream,
      options.subjectPrefix,
    );
    void this.watchConnection();
  }

  private async watchConnection(): Promise<void> {
    try {
      for await (const status of this.nc.status()) {
        if (status.type === Events.Disconnect) this.connected = false;
        else if (status.type === Events.Reconnect) this.connected = true;
      }
    } catch {
      // the connection closed
    }
  }

  /** While NATS is unreachable a command answers "unavailable" now rather than after the publish timeout. */
  private ensureConnected(): void {
    if (!this.connected || this.nc.isClosed()) {
      throw new EventStoreUnavailableError(new Error('not connected to NATS'));
    }
  }

  static async create(nc: NatsConnection, options: EventStoreOptions): Promise<EventStore> {
    const jsm = await nc.jetstreamManager({ timeout: options.timeoutMs ?? 5000 });
    return new EventStore(nc, jsm, options);
  }

  /** The name of this process's durable consumer `name`: its owner's prefix, then the name. */
  consumerName(name: string): string {
    return `${this.owner}_${name}`;
  }

  /**
   * Binds to the stream and checks that it is what infra/nats/event-stream.json defines: a service
   * whose stream is missing or differs (another retention, a limit that drops events, deletes
   * allowed, a republish, mirror or source, a seal) does not start, and says what differs. Only
   * the operator step (provision) creates or changes the stream.
   */
  async verifyStream(): Promise<void> {
    const info = await streamInfoOrNull(this.jsm, this.stream);
    if (!info) throw new StreamDefinitionError(this.stream, []);
    const differences = streamDifferences(info.config, this.definition());
    if (differences.length > 0) throw new StreamDefinitionError(this.stream, differences);
  }

  /** The operator step (provisionEventStream) for this store's stream and snapshot bucket. */
  provision(): Promise<ProvisionOutcome> {
    return provisionEventStream(this.nc, {
      stream: this.stream,
      subjectPrefix: this.subjectPrefix,
      replicas: this.options.replicas ?? 1,
    });
  }

  private definition() {
    return eventStreamConfig({
      stream: this.stream,
      subjectPrefix: this.subjectPrefix,
      replicas: this.options.replicas ?? 1,
    });
  }

  subject(aggregate: AggregateName, id: string): string {
    return subjectFor(this.subjectPrefix, aggregate, id);
  }

  async append(
    aggregate: AggregateName,
    aggregateId: string,
    events: readonly NewEvent[],
    options: AppendOptions,
  ): Promise<AppendResult> {
    const subject = this.subject(aggregate, aggregateId);
    const commit = buildCommit(this.catalogue, aggregateId, events, options);
    const stored = await this.sealed(aggregate, aggregateId, commit);
    this.ensureConnected();
    let ack;
    const publishedAt = performance.now();
    try {
      ack = await tracedPublish(
        subject,
        options.commandId,
        (headers) =>
          this.publishAcks().publish(subject, encodeCommit(stored), headers, {
            msgID: options.commandId,
            lastSubjectSequence: options.expectedSequence,
          }),
        (published) => published.seq,
      );
    } catch (error) {
      if (apiErrorCode(error) === WRONG_LAST_SEQUENCE) {
        throw new WrongExpectedSequenceError(subject, options.expectedSequence);
      }
      if (isUnavailable(error)) throw new EventStoreUnavailableError(error);
      throw error;
    }
    if (ack.duplicate) {
      const stored = await this.readCommit(ack.seq);
      return { sequence: ack.seq, duplicate: true, events: stored ?? [] };
    }
    const recorded = commit.events.map((envelope, index) => ({
      ...envelope,
      sequence: ack.seq,
      index,
      subject,
      aggregate,
      commandId: commit.commandId,
    })) as RecordedEvent[];
    const timing = { ackSeconds: (performance.now() - publishedAt) / 1000 };
    for (const listener of this.appendListeners) listener(recorded, timing);
    return { sequence: ack.seq, duplicate: false, events: recorded };
  }

  /** The commit as it is stored: its events' personal fields sealed under the subject's data key. */
  private async sealed(aggregate: AggregateName, aggregateId: string, commit: Commit): Promise<Commit> {
    if (!commit.events.some((e) => holdsPersonalData(this.catalogue, e.type, e.data))) return commit;
    if (!this.dataKeys) throw new Error('this event store has no data keys: it cannot write personal data');
    const keyId = dataKeyIdFor(aggregate, aggregateId);
    const key = await this.dataKeys.keyForWriting(keyId);
    return { ...commit, events: commit.events.map((e) => sealEnvelope(this.catalogue, e, keyId, key)) };
  }

  /**
   * Calls `listener` with the events of every commit this store appends (a repeated command
   * id stores nothing and is not reported), and how long its acknowledgement took, e.g. for
   * metrics. Returns the way to stop.
   */
  onAppended(listener: AppendListener): () => void {
    this.appendListeners.add(listener);
    return () => this.appendListeners.delete(listener);
  }

  /** The subject's current version without reading its history. */
  async lastSequence(subject: string): Promise<number> {
    const message = await this.getMessage({ last_by_subj: subject });
    return message?.seq ?? 0;
  }

  private publishAcks(): PublishAcks {
    return (this.acks ??= new PublishAcks(this.nc, this.timeoutMs));
  }

  /** The sequence of the first commit after `afterSequence` on a subject matching `filter`, or null. */
  async nextSequence(filter: string, afterSequence: number): Promise<number | null> {
    const message = await this.getMessage({ seq: afterSequence + 1, next_by_subj: filter });
    return message?.seq ?? null;
  }

  /**
   * The commits stored on a subject, from the server's per-subject count: no message is read,
   * where finding the subject's last one reads back through every block stored since.
   */
  async commitCount(subject: string): Promise<number> {
    this.ensureConnected();
    try {
      const info = await this.jsm.streams.info(this.stream, { subjects_filter: subject });
      return info.state.subjects?.[subject] ?? 0;
    } catch (error) {
      if (isUnavailable(error)) throw new EventStoreUnavailableError(error);
      throw error;
    }
  }

  /**
   * Every event of one aggregate after `afterSequence`, in order. With `commits`, the caller knows
   * (commitCount) that exactly that many commits follow: the read ends with the last of them
   * instead of asking for one more, an answer that reads to the stream's end.
   */
  async load(
    aggregate: AggregateName,
    aggregateId: string,
    afterSequence = 0,
    commits?: number,
  ): Promise<LoadedEvents> {
    const subject = this.subject(aggregate, aggregateId);
    const events: RecordedEvent[] = [];
    let version = afterSequence;
    for (let reads = 0; reads < DIRECT_READ_LIMIT; reads++) {
      if (commits !== undefined && reads >= commits) return { events, version };
      const message = await this.getMessage({ seq: version + 1, next_by_subj: subject });
      if (!message) return { events, version };
      events.push(...(await this.decode(message.subject, message.seq, message.data)));
      version = message.seq;
    }
    const rest = await this.readSubjectWithConsumer(subject, version);
    return { events: [...events, ...rest.events], version: rest.version };
  }

  async readCommit(sequence: number): Promise<RecordedEvent[] | null> {
    const message = await this.getMessage({ seq: sequence });
    return message ? await this.decode(message.subject, message.seq, message.data) : null;
  }

  async lastStreamSequence(): Promise<number> {
    const info = await this.jsm.streams.info(this.stream);
    return info.state.last_seq;
  }

  /**
   * Reads the whole stream (or a range of it) in order, one commit at a time, for replays
   * and rebuilds. Uses its own short-lived consumer, so the live stream is never disturbed.
   */
  async *read(fromSequence = 1, untilSequence?: number): AsyncGenerator<RecordedEvent[]> {
    for await (const message of this.readRaw(fromSequence, untilSequence)) {
      yield await this.decode(message.subject, message.sequence, message.data);
    }
  }

  /**
   * The stored messages undecoded, so a reader can decide what to do with one it cannot decode;
   * with `filterSubject`, only those of the subjects it matches (one filter: nats-server 2.9).
   * Filtered, the read ends at the first match at or past `untilSequence`, so a match must be
   * there (`lastSequence` takes the filter to find the last), or it stalls and fails. The new
   * consumer's pending count cannot tell instead: nats-server 2.9.10 reports none for a wildcard
   * filter now and then when a match is there (filtered-read.int.test.ts).
   */
  async *readRaw(
    fromSequence = 1,
    untilSequence?: number,
    filterSubject?: string,
  ): AsyncGenerator<RawCommit> {
    const last = untilSequence ?? (await this.lastStreamSequence());
    yield* this.readWithConsumer(fromSequence, last, filterSubject);
  }

  private async readSubjectWithConsumer(subject: string, afterSequence: number): Promise<LoadedEvents> {
    const last = await this.lastSequence(subject);
    const events: RecordedEvent[] = [];
    if (last <= afterSequence) return { events, version: afterSequence };
    const raws: RawCommit[] = [];
    for await (const message of this.readWithConsumer(afterSequence + 1, last, subject)) raws.push(message);
    for (const decoded of await this.decodeAll(raws)) {
      if (decoded instanceof Error) throw decoded;
      events.push(...decoded);
    }
    return { events, version: last };
  }

  /**
   * Messages `from`..`last` in order (of one subject when `filterSubject` is given), through
   * short-lived R1 in-memory consumers that push onto this process's own inbox (the only
   * subjects its NATS user may read): an ephemeral create names no consumer, so a service user
   * needs no right on any consumer's name to read, and the server removes the consumer once
   * nobody listens. Flow control keeps the server from sending faster than the reader takes.
   * In a cluster that has lost a node, JetStream 2.9 may place a new R1 consumer on the lost
   * node: its creation times out, or it delivers nothing. Either way this reader gives up on
   * that consumer after two missed heartbeats and continues after the last message it got with
   * a new one, instead of waiting forever. A message its consumer did not deliver (another
   * user's push consumer aimed at the inbox: nats-server 2.9 lets any reader make one) is dropped
   * unread, and moves neither the read's position nor its stall watch.
   */
  private async *readWithConsumer(
    from: number,
    last: number,
    filterSubject?: string,
  ): AsyncGenerator<RawCommit> {
    let next = from;
    let failures = 0;
    this.readJsm ??= await this.nc.jetstreamManager({
      timeout: Math.min(this.timeoutMs, READ_CONSUMER_CREATE_TIMEOUT_MS),
      checkAPI: false,
    });
    const jsm = this.readJsm;
    while (next <= last) {
      this.ensureConnected();
      const inbox = ownInbox(this.nc);
      const subscription = this.nc.subscribe(inbox);
      const stall = stallWatch(subscription, READ_HEARTBEAT_MS * 2);
      try {
        const consumer = await jsm.consumers.add(this.stream, {
          deliver_subject: inbox,
          ack_policy: AckPolicy.None,
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: next,
          num_replicas: 1,
          mem_storage: true,
          flow_control: true,
          idle_heartbeat: nanos(READ_HEARTBEAT_MS),
          inactive_threshold: nanos(READ_INACTIVE_MS),
          ...(filterSubject ? { filter_subject: filterSubject } : {}),
        });
        const own: OwnConsumer = {
          stream: this.stream,
          consumer: consumer.name,
          ...(filterSubject ? { filter: filterSubject } : {}),
        };
        stall.arm();
        for await (const message of subscription) {
          if (isStatus(message)) {
            stall.arm();
            answerFlowControl(this.nc, message);
            continue;
          }
          const delivery = ownDelivery(message, own);
          if (!delivery) {
            dropForeignDelivery('read', undefined, message, own, this.deliveryLogger);
            continue;
          }
          stall.arm();
          const sequence = delivery.streamSequence;
          if (sequence < next) continue;
          if (sequence > last) {
            next = last + 1;
            break;
          }
          next = sequence + 1;
          failures = 0;
          // The caller's time between two messages is not the server's stall.
          stall.pause();
          yield { sequence, subject: message.subject, data: message.data };
          if (sequence >= last) break;
          stall.arm();
        }
      } catch (error) {
        // Only a consumer that could not be reached is replaced; anything else is the caller's to see.
        if (error instanceof EventStoreUnavailableError || !isUnavailable(error)) throw error;
        if (++failures >= READ_ATTEMPTS) throw new EventStoreUnavailableError(error);
        continue;
      } finally {
        stall.pause();
        subscription.unsubscribe();
      }
      if (next <= last && ++failures >= READ_ATTEMPTS) {
        throw new EventStoreUnavailableError(new Error(`reading ${this.stream} stalled at sequence ${next}`));
      }
    }
  }

  /** One stored message as current-version events, its sealed fields opened. */
  async decode(subject: string, sequence: number, payload: Uint8Array): Promise<RecordedEvent[]> {
    const [decoded] = await this.decodeAll([{ subject, sequence, data: payload }]);
    if (decoded instanceof Error) throw decoded;
    return decoded!;
  }

  /**
   * Many stored messages, with the data keys of all of them loaded in one round trip. A message
   * that cannot be decoded is its own error, so one bad message does not fail the rest; failing
   * to load the keys fails the whole call, as it says nothing about the messages.
   */
  async decodeAll(
    raws: readonly RawCommit[],
    mode: DecodeMode = 'validated',
  ): Promise<Array<RecordedEvent[] | Error>> {
    const parsed = raws.map((raw) => {
      try {
        return parseCommit(raw.data, mode);
      } catch (error) {
        return asError(error);
      }
    });
    const keyIds = new Set<string>();
    for (const commit of parsed) if (!(commit instanceof Error)) commitKeyIds(this.catalogue, commit, keyIds);
    const keys = this.dataKeys && keyIds.size > 0 ? await this.dataKeys.keysForReading(keyIds) : null;
    const opened = this.dataKeys ? (keys ?? new Map<string, Buffer | null>()) : null;
    return parsed.map((commit, i) => {
      if (commit instanceof Error) return commit;
      const raw = raws[i]!;
      try {
        return recordCommit(
          this.catalogue,
          this.subjectPrefix,
          raw.subject,
          raw.sequence,
          commit,
          opened,
          mode,
        );
      } catch (error) {
        return asError(error);
      }
    });
  }

  private async getMessage(
    query: { seq: number } | { last_by_subj: string } | { seq: number; next_by_subj: string },
  ): Promise<StoredMsg | null> {
    this.ensureConnected();
    try {
      return await this.jsm.streams.getMessage(this.stream, query);
    } catch (error) {
      if (apiErrorCode(error) === NO_MESSAGE_FOUND) return null;
      if (isUnavailable(error)) throw new EventStoreUnavailableError(error);
      throw error;
    }
  }
}
