import { setTimeout as sleep } from 'node:timers/promises';
import { AckPolicy, Consumer, ConsumerMessages, DeliverPolicy, JsMsg, nanos } from 'nats';
import { partitionFilter, partitionOfSubject, RecordedEvent } from '@shop/contracts';
import {
  consumerDifferences,
  dropForeignDelivery,
  EventStore,
  parseCommit,
  takeOwnDeliveriesOnly,
} from '@shop/eventstore';
import { withCorrelationId } from '@shop/logging';
import { traceEvent, tracedProcess } from '@shop/tracing';
import { AdvisoryLock, ExclusiveLock } from './advisory-lock';
import { LockLost, LockTiming, noLockCheck } from './lock-session';
import { Reaction } from './reaction';
import { ReactionHosts } from './reaction-hosts';
import {
  partitionCountOfConsumer,
  partitionSuffix,
  ReactionPartition,
  reactionConsumerName,
} from './reaction-partition';
import { ParkedReaction, ReactionParking } from './reaction-parking';
import { ReactionPositions } from './reaction-positions';
import { UnprocessableEvent } from './unprocessable-event';

export interface ReactionLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ReactionRunnerOptions {
  store: EventStore;
  reaction: Reaction;
  logger: ReactionLogger;
  /**
   * Attempts before a message is given up (logged as an error) and parked. Without parking it is
   * then terminated: only for a reaction whose work may be lost (a memory sent to MemWal).
   */
  maxDeliveries?: number;
  /** Messages handled at once by the active runner (different subjects only). */
  concurrency?: number;
  /**
   * Where events go that still fail after the last attempt; they are retried from there. A
   * message is terminated only once its parking is stored: until then it is held and parking is
   * retried, however long the parking's database is down.
   */
  parking?: ReactionParking;
  retryParkedEveryMs?: number;
  /**
   * Postgres of the session-level advisory lock that keeps one active runner per reaction,
   * stream and partition, as projections do: the consumer is shared by every process, so
   * without it two processes would each take messages of one subject and reorder them. Others
   * stand by.
   */
  databaseUrl?: string;
  /**
   * The slice of the reaction's aggregates this runner handles (all of them by default): a
   * process runs one runner per partition, each with its own consumer, lock and parked events.
   */
  partition?: ReactionPartition;
  /**
   * The process's session for partitioned reactions, shared by its runners: it holds their
   * locks (instead of a connection of each runner's own to `databaseUrl`) and their process's
   * share of the partitions. Without it, a process takes every partition it finds free, so the
   * first one up holds them all.
   */
  hosts?: ReactionHosts;
  /** The heartbeat and lease of the runner's own lock (`databaseUrl`); the hosts have their own. */
  lockTiming?: LockTiming;
  /**
   * The partition's own record of how far it has handled its consumer (beside the parked events).
   * Binding to its consumer, the runner checks the consumer's acknowledgements against it: a
   * consumer acknowledged past the record is re-created after the record, and a new consumer (a
   * renamed one, a new split) starts there. Without it only the consumer's settings are checked.
   */
  positions?: ReactionPositions;
}

const retryDelayMs = (attempt: number) => Math.min(500 * 2 ** (attempt - 1), 30_000);

/** A waiting or retried message tells the server it is still held, well within the 60 s ack wait. */
const keepAliveMs = 20_000;

/** How often a holder checks whether its process holds more than its share of partitions. */
const shareCheckMs = 2000;

/** A partition let go is not claimed again by its process for this long: a standby's turn. */
const afterYieldMs = 3000;

/** How often the active runner records how far it has handled its consumer. */
const recordEveryMs = 1000;

/**
 * Through which sequence every message the consumer delivered in this turn is settled (handled,
 * parked or skipped): the lowest still in hand bounds it, or else the last delivered.
 */
class HandledThrough {
  private readonly open = new Set<number>();
  private highest: number;

  constructor(start: number) {
    this.highest = start;
  }

  taken(sequence: number): void {
    this.open.add(sequence);
    this.highest = Math.max(this.highest, sequence);
  }

  settled(sequence: number): void {
    this.open.delete(sequence);
  }

  get sequence(): number {
    return this.open.size === 0 ? this.highest : Math.min(...this.open) - 1;
  }
}

/**
 * Runs a reaction on a durable pull consumer filtered to its aggregate. Like a projection, it
 * keeps each subject's order: a message waits for the earlier messages of its subject, a
 * failure is retried in place (later messages of that subject wait behind it), and a subject
 * whose event was parked parks its later events too until the parked ones succeed. Different
 * subjects are handled concurrently, up to `concurrency` messages at once. A partitioned
 * reaction runs one runner per partition, each the whole of the above for its own aggregates.
 */
export class ReactionRunner {
  private messages: ConsumerMessages | null = null;
  private loop: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  /** The last queued message of each subject that has any in hand. */
  private readonly tails = new Map<string, Promise<void>>();
  private retryTimer: NodeJS.Timeout | null = null;
  private retrying: Promise<void> | null = null;
  private stopping = false;
  /** Letting the partition go to another host: what is in hand is handed back, then the lock. */
  private yielding = false;
  private halt = new AbortController();
  /** Null without a database: the runner then consumes as if it held the lock. */
  private readonly lock: ExclusiveLock | null;
  private readonly partition: ReactionPartition;
  /** The consumer's filter subject: the subjects of the reaction's aggregate in its partition. */
  private readonly filter: string;
  private handled: HandledThrough | null = null;
  private recorded = 0;

  constructor(private readonly options: ReactionRunnerOptions) {
    const { databaseUrl, store, reaction, hosts, lockTiming } = options;
    this.partition = options.partition ?? { index: 0, count: 1 };
    this.filter = partitionFilter(
      store.subjectPrefix,
      reaction.aggregate,
      this.partition.index,
      this.partition.count,
    );
    const suffix = partitionSuffix(this.partition).replace('_', ':');
    const key = `reaction:${store.stream}:${reaction.name}${suffix}`;
    const onLost = () => {
      this.messages?.stop();
      // Messages in hand stop being retried: they are the new holder's now.
      this.halt.abort();
    };
    if (hosts) this.lock = hosts.lock(reaction.name, this.partition, key, onLost);
    else if (databaseUrl)
      this.lock = new AdvisoryLock(
        databaseUrl,
        key,
        `lock:reaction:${reaction.name}${suffix}`,
        onLost,
        lockTiming,
      );
    else this.lock = null;
  }

  async start(): Promise<void> {
    this.stopping = false;
    this.halt = new AbortController();
    this.loop = this.run();
    if (this.options.parking) {
      this.retryTimer = setInterval(() => {
        this.retrying ??= this.retryParked().finally(() => (this.retrying = null));
      }, this.options.retryParkedEveryMs ?? 30_000);
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.halt.abort();
    if (this.retryTimer) clearInterval(this.retryTimer);
    this.messages?.stop();
    await this.loop;
    await Promise.all(this.inFlight);
    await this.retrying;
  }

  /** Consumes while this process holds the lock (or always, without one); stands by otherwise. */
  private async run(): Promise<void> {
    while (!this.stopping) {
      if (this.lock && !(await this.claim())) {
        await this.pause(1000);
        continue;
      }
      let failed = false;
      const shareCheck = this.options.hosts
        ? setInterval(() => void this.yieldIfSurplus(), shareCheckMs)
        : null;
      const recording = this.options.positions ? setInterval(() => void this.record(), recordEveryMs) : null;
      try {
        const consumer = await this.takeOver();
        const messages = await consumer.consume({ max_messages: this.options.concurrency ?? 8 });
        this.messages = messages;
        // Only its own consumer's deliveries: another user's push consumer aimed at the pull's
        // inbox (nats-server 2.9 lets any reader make one) is dropped before it is handled.
        const own = { stream: this.options.store.stream, consumer: this.consumerName, filter: this.filter };
        takeOwnDeliveriesOnly(messages, own, (message) =>
          dropForeignDelivery('reaction', this.options.reaction.name, message, own, this.options.logger),
        );
        // stop(), a share check or the loss of the lock may have come while the consumer was
        // being opened: consuming on, it would hand every message back, again and again.
        if (this.stopping || this.yielding || (this.lock && !this.lock.held)) messages.stop();
        await this.consume(messages);
      } catch (error) {
        this.options.logger.warn(
          { reaction: this.options.reaction.name, err: error },
          'reaction consumer failed; letting a standby take over',
        );
        failed = true;
      } finally {
        if (shareCheck) clearInterval(shareCheck);
        if (recording) clearInterval(recording);
      }
      // Stopped, or the lock was lost: what is in hand finishes (or is let go) before another turn.
      await Promise.all(this.inFlight);
      await this.record();
      this.handled = null;
      if (!this.stopping) this.halt = new AbortController();
      if (this.yielding) {
        // Only now, with nothing of it in hand here, may another host take the partition.
        await this.lock?.release();
        this.yielding = false;
        await this.pause(afterYieldMs);
      } else if (failed) {
        // A process that cannot consume (its NATS connection gone, say) must not keep the lock
        // from a standby that can: it lets go, and waits longer than a standby's poll to ask again.
        await this.options.hosts?.stepBack(this.options.reaction.name);
        await this.lock?.release();
        await this.pause(2000);
      }
    }
    await this.lock?.release();
  }

  /** The partition's durable consumer: `<owner>_reaction_<name>[_p<i>of<N>]`. */
  private get consumerName(): string {
    const { store, reaction } = this.options;
    return store.consumerName(reactionConsumerName(reaction.name, this.partition));
  }

  /** Takes the lock when free and this process is below its share of partitions; true while held. */
  private async claim(): Promise<boolean> {
    const { hosts, reaction } = this.options;
    if (this.lock!.held) return true;
    if (hosts && !(await hosts.mayClaim(reaction.name, this.partition).catch(() => true))) return false;
    return this.lock!.tryAcquire().catch(() => false);
  }

  /** Lets the partition go when its process holds more than its share (a host joined). */
  private async yieldIfSurplus(): Promise<void> {
    const { hosts, reaction, logger } = this.options;
    if (!hosts || this.yielding || this.stopping || !this.lock?.held) return;
    if (!(await hosts.surplus(reaction.name, this.partition).catch(() => false))) return;
    logger.warn(
      { reaction: reaction.name, partition: this.partition.index },
      'letting a partition go to another host (this one holds more than its share)',
    );
    this.yielding = true;
    this.messages?.stop();
    this.halt.abort();
  }

  /**
   * Binds to the partition's consumer, checked against what this runner creates it with and
   * against its own record, so nothing it has not handled is skipped silently:
   *
   * - a consumer whose settings differ (a filter, an ack policy, a push delivery, a limit on
   *   deliveries ...) or that is acknowledged past the record (by anything but this runner: the
   *   record follows what the runner settled) is re-created after the record, or at its ack
   *   floor without one, and the differences are logged by name;
   * - with anything pending acknowledgement (an earlier holder took messages and never
   *   acknowledged them; nothing of this process is in hand here) it is re-created at its ack
   *   floor, so those messages come first, in stream order, rather than after the ack wait
   *   behind their subjects' later events; a message past the floor that was already
   *   acknowledged is delivered again, which reactions, idempotent, take as a repeat;
   * - a missing one (a new reaction, a renamed consumer, a new split) is created after the record.
   *
   * A partition's consumer is delivered its partition's messages only: its one filter subject
   * (all nats-server 2.9 allows) is the partition's subjects, whose hash bits are tokens of every
   * event subject (partitionFilter). A consumer of an earlier filter (the reaction's whole
   * aggregate, before the partition was in the subjects) differs, so it is re-created after the
   * record as above: nothing of the partition past the record is skipped.
   */
  private async takeOver(): Promise<Consumer> {
    const { store, reaction, positions, logger } = this.options;
    const name = this.consumerName;
    const config = {
      durable_name: name,
      ack_policy: AckPolicy.Explicit,
      filter_subject: this.filter,
      ack_wait: nanos(60_000),
      // The runner counts attempts itself; the server never stops redelivering.
      max_deliver: -1,
      max_ack_pending: 1000,
    };
    const info = await store.jsm.consumers.info(store.stream, name).catch((error: unknown) => {
      if ((error as { code?: string }).code === '404') return null;
      throw error;
    });
    const record = positions ? await positions.read(reaction.name, this.partition) : null;
    this.recorded = record ?? 0;
    let start: number;
    if (!info) {
      start = record !== null ? record + 1 : await this.startOfNewConsumer();
    } else {
      const floor = info.ack_floor.stream_seq;
      const differences = consumerDifferences(info.config, config);
      if (record !== null && floor > record && (await this.unhandledBetween(record, floor)))
        differences.push(`acknowledged through ${floor}, past this runner's record ${record}`);
      if (differences.length > 0) {
        start = Math.min(record ?? floor, floor) + 1;
        logger.warn(
          { reaction: reaction.name, consumer: name, differences, from: start },
          "reaction consumer differs from what its runner made it; re-creating it from the runner's record",
        );
      } else if (info.num_ack_pending > 0) {
        start = floor + 1;
      } else {
        this.handled = new HandledThrough(floor);
        return store.js.consumers.get(store.stream, name);
      }
      await store.jsm.consumers.delete(store.stream, name);
    }
    await store.jsm.consumers.add(store.stream, {
      ...config,
      ...(start > 1
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: start }
        : { deliver_policy: DeliverPolicy.All }),
    });
    this.handled = new HandledThrough(start - 1);
    return store.js.consumers.get(store.stream, name);
  }

  /**
   * Where a partition's first consumer starts: after the records of the reaction under another
   * partition count, the one STREAM_PARTITIONS was changed from (all its holders stopped first),
   * since every message up to there was handled under the old split. Without such records, after
   * the lowest ack floor of the reaction's consumers under another partition count (made before
   * the records were kept). From there on messages already handled come again as repeats, none
   * is skipped. Without either, from the start of the stream, as a new reaction always did.
   */
  private async startOfNewConsumer(): Promise<number> {
    const { store, reaction, positions } = this.options;
    const recorded = [...((await positions?.byCount(reaction.name)) ?? new Map<number, number>())]
      .filter(([count]) => count !== this.partition.count)
      .map(([, sequence]) => sequence);
    if (recorded.length > 0) return Math.min(...recorded) + 1;
    const prefix = store.consumerName('');
    let floor: number | null = null;
    for await (const info of store.jsm.consumers.list(store.stream)) {
      if (!info.name.startsWith(prefix)) continue;
      const count = partitionCountOfConsumer(info.name.slice(prefix.length), reaction.name);
      if (count === null || count === this.partition.count) continue;
      floor = Math.min(floor ?? Infinity, info.ack_floor.stream_seq);
    }
    return (floor ?? 0) + 1;
  }

  /**
   * Whether a message of the reaction's subjects lies in (after, through]: the ack floor of a
   * consumer runs ahead of the last message it delivered when only other subjects came after it.
   */
  private async unhandledBetween(after: number, through: number): Promise<boolean> {
    const { store } = this.options;
    const next = await store.nextSequence(this.filter, after);
    return next !== null && next <= through;
  }

  /** Records how far this turn has settled the consumer, while (and only while) it holds the partition. */
  private async record(): Promise<void> {
    const { positions, reaction, logger } = this.options;
    const handled = this.handled?.sequence;
    if (!positions || handled === undefined || handled <= this.recorded) return;
    if (this.lock && !this.lock.held) return;
    try {
      await positions.record(reaction.name, this.partition, handled);
      this.recorded = Math.max(this.recorded, handled);
    } catch (error) {
      logger.warn({ reaction: reaction.name, err: error }, 'could not record how far the reaction got');
    }
  }

  /** Waits, unless the runner stops or loses its lock meanwhile. */
  private async pause(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.halt.signal }).catch(() => undefined);
  }

  private async consume(messages: ConsumerMessages): Promise<void> {
    const limit = this.options.concurrency ?? 8;
    const handled = this.handled;
    for await (const message of messages) {
      handled?.taken(message.seq);
      const keepAlive = setInterval(() => message.working(), keepAliveMs);
      const previous = this.tails.get(message.subject) ?? Promise.resolve();
      const work = previous
        .then(async () => {
          if (await this.handle(message)) handled?.settled(message.seq);
        })
        // Only an acknowledgement can throw (its connection closed): the message then comes back.
        .catch((error: unknown) => {
          const entry = { reaction: this.options.reaction.name, sequence: message.seq };
          this.options.logger.warn({ ...entry, err: error }, 'could not answer the message');
        })
        .finally(() => {
          clearInterval(keepAlive);
          this.inFlight.delete(work);
          if (this.tails.get(message.subject) === work) this.tails.delete(message.subject);
        });
      this.tails.set(message.subject, work);
      this.inFlight.add(work);
      if (this.inFlight.size >= limit) await Promise.race(this.inFlight);
    }
  }

  /**
   * A message with nothing for the reaction is acknowledged unread and makes no span: most of an
   * aggregate's messages are such, and a span each would cost more than reading them does.
   */
  private async handle(message: JsMsg): Promise<boolean> {
    if (!this.handlesAny(message.data)) {
      message.ack();
      return true;
    }
    return tracedProcess(this.options.reaction.name, message, () => this.settle(message));
  }

  /** Handles a message until it is acknowledged, parked, dropped (true) or let go (false). */
  private async settle(message: JsMsg): Promise<boolean> {
    const { store, reaction, logger, parking } = this.options;
    const entry = { reaction: reaction.name, subject: message.subject, sequence: message.seq };
    const max = this.options.maxDeliveries ?? 10;
    let attempt = message.info.redeliveryCount;
    for (;;) {
      if (this.letsGo(message, entry)) return false;
      try {
        if (parking && (await parking.holds(reaction.name, message.subject))) {
          await parking.park({ ...entry, error: 'waits behind an earlier parked event of its subject' });
        } else {
          await this.react(await store.decode(message.subject, message.seq, message.data));
        }
        message.ack();
        return true;
      } catch (error) {
        // The runner's lock, checked by an effect: the message is the next holder's, not a failure.
        if (error instanceof LockLost && this.letsGo(message, entry)) return false;
        if (attempt >= max || error instanceof UnprocessableEvent) {
          if (!parking) {
            logger.error({ ...entry, err: error }, 'reaction gave up; event dropped (no parking)');
            message.term();
            return true;
          }
          logger.error({ ...entry, err: error }, 'reaction gave up; parking the event');
          traceEvent('parked', { reason: describe(error) });
          return this.park(parking, message, { ...entry, error: describe(error) });
        }
        logger.warn({ ...entry, delivery: attempt, err: error }, 'reaction failed; retrying');
        traceEvent('retry', { delivery: attempt, reason: describe(error) });
        await this.pause(retryDelayMs(attempt));
        attempt++;
      }
    }
  }

  /** Terminates the message once its parking is stored; until then it is held and parking retried. */
  private async park(parking: ReactionParking, message: JsMsg, entry: ParkedReaction): Promise<boolean> {
    const { logger } = this.options;
    for (let attempt = 1; ; attempt++) {
      if (this.letsGo(message, entry)) return false;
      try {
        await parking.park(entry);
        message.term();
        return true;
      } catch (error) {
        logger.error({ ...entry, err: error }, 'could not park the event; holding it and retrying');
        await this.pause(retryDelayMs(attempt));
      }
    }
  }

  /**
   * Whether the runner stops or has lost its lock: the message is then handed back unfinished,
   * for the next start or the new holder to handle in order (see takeOver).
   */
  private letsGo(message: JsMsg, entry: Omit<ParkedReaction, 'error'>): boolean {
    const lockLost = this.lock !== null && (!this.lock.held || this.yielding);
    if (!this.stopping && !lockLost) return false;
    if (lockLost) this.options.logger.warn(entry, 'lost or let go the lock; message left to the next holder');
    message.nak();
    return true;
  }

  /**
   * Whether a message holds an event the reaction handles, read from its events' types alone.
   * Most of an aggregate's messages hold none (every chat message, for the session's key
   * erasure): they are acknowledged with no parking query, no decoding and no sealed field
   * opened. A message that cannot be parsed goes the whole way, to fail and park there.
   */
  private handlesAny(payload: Uint8Array): boolean {
    const { eventTypes } = this.options.reaction;
    try {
      return parseCommit(payload, 'trusted').events.some((event) => eventTypes.includes(event.type));
    } catch {
      return true;
    }
  }

  private async react(events: readonly RecordedEvent[]): Promise<void> {
    const { reaction } = this.options;
    for (const event of events) {
      if (!reaction.eventTypes.includes(event.type)) continue;
      await withCorrelationId(event.correlationId, () => reaction.handle(event, this.lock ?? noLockCheck));
    }
  }

  /** Whether a parked event's subject falls in this runner's partition. */
  private owns(subject: string): boolean {
    const { index, count } = this.partition;
    return partitionOfSubject(this.options.store.subjectPrefix, subject, count) === index;
  }

  /**
   * Parked events are retried subject by subject in stream order; the first that still fails
   * keeps itself and the rest of its subject parked. Handlers are idempotent, so a parked event
   * retried by several processes at once is harmless.
   */
  private async retryParked(): Promise<void> {
    const { parking, reaction, store, logger } = this.options;
    // Only the active runner retries, so parked events too are handled by one process in order.
    if (!parking || (this.lock && !this.lock.held) || this.yielding) return;
    try {
      const stuck = new Set<string>();
      for (const entry of await parking.parked(reaction.name)) {
        // Parked entries are the reaction's; a partition's holder retries its own subjects' only,
        // so they keep their order, and stay with their subject whatever the partition count.
        if (stuck.has(entry.subject) || !this.owns(entry.subject)) continue;
        const events = await store.readCommit(entry.sequence);
        try {
          if (events) await this.react(events);
          await parking.release(reaction.name, entry.sequence);
          logger.warn({ reaction: reaction.name, sequence: entry.sequence }, 'parked event handled on retry');
        } catch {
          // Still failing: it and the later events of its subject stay parked and visible.
          stuck.add(entry.subject);
        }
      }
    } catch (error) {
      logger.warn({ reaction: reaction.name, err: error }, 'could not read parked events');
    }
  }
}

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 2000);
}
