import { setTimeout as sleep } from 'node:timers/promises';
import { RecordedEvent } from '@shop/contracts';
import { Aggregate } from '@shop/domain';
import { CommitMetadata, EventStore, SnapshotStore, WrongExpectedSequenceError } from '@shop/eventstore';
import { z } from 'zod';
import { AggregateCache, AggregateCacheBounds, CachedAggregate } from './aggregate-cache';
import { ConcurrencyExhaustedError } from './errors';
import { decodeState, encodeState, hasShapeOf } from './snapshot-codec';
import { authenticateSnapshot, openAuthenticatedSnapshot } from './snapshot-mac';

/** What the runner needs of an event store; an in-memory one serves the unit tests. */
export type AggregateStore = Pick<
  EventStore,
  'subject' | 'append' | 'load' | 'lastSequence' | 'readCommit' | 'commitCount'
>;

type AnyEvent = { type: string; data: unknown };

/** One instance of an aggregate, with the subject its commits go to. */
interface Instance<C, E extends AnyEvent, S> {
  aggregate: Aggregate<C, E, S>;
  id: string;
  subject: string;
}

export interface CommandOutcome<E extends AnyEvent, S> {
  /** The events this command stored (or, for a repeated command id, the ones stored the first time). */
  events: RecordedEvent<E>[];
  state: S;
  /** The aggregate's version after the command: the stream sequence to wait for on the read side. */
  version: number;
  /** False when the decision was a no-op, or the command id had been handled before. */
  appended: boolean;
}

export interface DeciderRunnerOptions {
  maxAttempts?: number;
  /** The bounds of the folded aggregates kept between commands, all aggregate types together. */
  cache?: AggregateCacheBounds;
  /** Snapshots of the folded aggregates, so a cold load folds only the commits after the latest. */
  snapshots?: SnapshotOptions;
}

export interface SnapshotOptions {
  store: SnapshotStore;
  /** Commits of one aggregate between two snapshots of it (AGGREGATE_SNAPSHOT_EVERY); 0 takes none. */
  every: number;
  /**
   * The writing service's own MAC key (libs/config's snapshotMacKey): a snapshot is folded only
   * when its MAC under this key verifies for its aggregate, subject, sequence and schema, so one
   * written by anyone else, or copied from another subject or sequence, is never trusted.
   */
  key: Buffer;
  /** A snapshot that could not be written or read: the command went on without it. */
  onError?: (error: unknown, subject: string) => void;
}

/**
 * The command ids a snapshot remembers, the latest ones. A command id repeated from further back
 * is still stored once by the stream's duplicate window (Nats-Msg-Id, 2 minutes); past both, the
 * decider sees it as a new command (docs/operations.md, Snapshots).
 */
export const SNAPSHOT_COMMAND_IDS = 128;

const snapshotBody = z.strictObject({
  state: z.looseObject({}),
  commands: z.array(z.tuple([z.string(), z.number().int().positive()])).max(SNAPSHOT_COMMAND_IDS),
  /** Commits through the snapshot's version; absent from snapshots written before it was kept. */
  commits: z.number().int().nonnegative().optional(),
});

/** The runner's cache bounds when none are given (AGGREGATE_CACHE_MAX_ENTRIES and _BYTES default to these). */
export const defaultAggregateCacheBounds: AggregateCacheBounds = {
  maxEntries: 20_000,
  maxBytes: 32 * 2 ** 20,
};

/**
 * Load, decide, append; on a concurrent write, reload and decide again. The decider sees
 * the state it is appended against, so no invariant can be broken by a race.
 */
export class DeciderRunner {
  /** Keyed by subject, which names the aggregate type and id. */
  private readonly cache: AggregateCache<unknown>;
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly maxAttempts: number;
  private readonly snapshots: SnapshotOptions | null;
  private readonly snapshotWrites = new Set<Promise<void>>();

  constructor(
    private readonly store: AggregateStore,
    options: DeciderRunnerOptions = {},
  ) {
    this.maxAttempts = options.maxAttempts ?? 16;
    this.cache = new AggregateCache(options.cache ?? defaultAggregateCacheBounds);
    this.snapshots = options.snapshots && options.snapshots.every > 0 ? options.snapshots : null;
  }

  /** Until the snapshots taken so far are written (or failed): for tests and the bench. */
  async snapshotsWritten(): Promise<void> {
    while (this.snapshotWrites.size > 0) await Promise.all(this.snapshotWrites);
  }

  /** How much the aggregate cache holds (a gauge for operators, and the bound's tests). */
  get cached(): { entries: number; bytes: number } {
    return { entries: this.cache.size, bytes: this.cache.bytes };
  }

  /**
   * Commands on one aggregate run one after another inside this process, so they never race
   * each other; races with other processes are settled by the expected sequence and a retry.
   */
  run<C, E extends AnyEvent, S>(
    aggregate: Aggregate<C, E, S>,
    aggregateId: string,
    command: C,
    meta: CommitMetadata,
  ): Promise<CommandOutcome<E, S>> {
    const instance = this.instanceOf(aggregate, aggregateId);
    const { subject } = instance;
    const previous = this.queues.get(subject) ?? Promise.resolve();
    const next = previous.then(() => this.decideAndAppend(instance, command, meta));
    const settled = next.catch(() => undefined);
    this.queues.set(subject, settled);
    void settled.then(() => {
      if (this.queues.get(subject) === settled) this.queues.delete(subject);
    });
    return next;
  }

  private async decideAndAppend<C, E extends AnyEvent, S>(
    instance: Instance<C, E, S>,
    command: C,
    meta: CommitMetadata,
  ): Promise<CommandOutcome<E, S>> {
    const { aggregate, subject } = instance;
    const { decider } = aggregate;
    const cache = this.cacheFor<S>();
    let current = cache.get(subject);
    let fresh = false;
    if (!current) {
      current = await this.catchUp(instance, undefined);
      fresh = true;
    }

    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      const repeated = current.commands.get(meta.commandId);
      if (repeated !== undefined) {
        const events = ((await this.store.readCommit(repeated)) ?? []) as RecordedEvent<E>[];
        return { events, state: current.state, version: current.version, appended: false };
      }

      let decided: E[];
      try {
        decided = decider.decide(command, current.state);
      } catch (error) {
        // A refusal based on a cached state must be confirmed against the stream first.
        if (!fresh && (await this.store.lastSequence(subject)) !== current.version) {
          current = await this.catchUp(instance, current);
          cache.set(subject, current);
          fresh = true;
          continue;
        }
        throw error;
      }

      if (decided.length === 0) {
        if (!fresh && (await this.store.lastSequence(subject)) !== current.version) {
          current = await this.catchUp(instance, current);
          cache.set(subject, current);
          fresh = true;
          continue;
        }
        return { events: [], state: current.state, version: current.version, appended: false };
      }

      try {
        const result = await this.store.append(aggregate.name, instance.id, decided, {
          ...meta,
          expectedSequence: current.version,
        });
        if (result.duplicate) {
          cache.delete(subject);
          return {
            events: result.events as RecordedEvent<E>[],
            state: current.state,
            version: result.sequence,
            appended: false,
          };
        }
        let state = current.state;
        for (const event of decided) state = decider.evolve(state, event);
        // Every command ever run on the aggregate is in this map, so copying it per command
        // would cost O(history); commands on one subject are serialised here, so it is safe
        // to extend in place.
        current.commands.set(meta.commandId, result.sequence);
        const next = {
          state,
          version: result.sequence,
          commands: current.commands,
          sinceSnapshot: current.sinceSnapshot + 1,
          commits: current.commits === null ? null : current.commits + 1,
        };
        cache.set(subject, next);
        this.snapshotIfDue(instance, next);
        return {
          events: result.events as RecordedEvent<E>[],
          state,
          version: result.sequence,
          appended: true,
        };
      } catch (error) {
        if (!(error instanceof WrongExpectedSequenceError)) throw error;
        // Another process writes this aggregate too: spread the retries out a little.
        await sleep(Math.random() * attempt * 2);
        current = await this.catchUp(instance, current);
        cache.set(subject, current);
        fresh = true;
      }
    }
    throw new ConcurrencyExhaustedError(subject, this.maxAttempts);
  }

  /**
   * The current state without deciding anything (read-side checks inside command handlers and
   * reactions). An aggregate with no commit is not cached: keeping it saves nothing, and a
   * reaction asking after many ids that have none (the owner of every session in a backlog)
   * would push the aggregates commands are working on out of the cache, each then loaded cold.
   */
  async state<C, E extends AnyEvent, S>(
    aggregate: Aggregate<C, E, S>,
    aggregateId: string,
  ): Promise<{ state: S; version: number }> {
    const instance = this.instanceOf(aggregate, aggregateId);
    const cache = this.cacheFor<S>();
    const current = await this.catchUp(instance, cache.get(instance.subject));
    if (current.version > 0) cache.set(instance.subject, current);
    return { state: current.state, version: current.version };
  }

  private instanceOf<C, E extends AnyEvent, S>(aggregate: Aggregate<C, E, S>, id: string): Instance<C, E, S> {
    return { aggregate, id, subject: this.store.subject(aggregate.name, id) };
  }

  private async catchUp<C, E extends AnyEvent, S>(
    instance: Instance<C, E, S>,
    from: CachedAggregate<S> | undefined,
  ): Promise<CachedAggregate<S>> {
    const {
      aggregate: { name, decider },
      id,
    } = instance;
    const start = from ?? (await this.fromSnapshot(instance));
    // How many commits follow the start, from the server's count: the read then stops at the last
    // of them instead of looking on to the stream's end for one more, which on nats-server 2.9
    // reads every block stored since (a long wait once the stream is large and the aggregate old).
    const following =
      start && start.commits !== null
        ? (await this.store.commitCount(instance.subject)) - start.commits
        : undefined;
    const limit = following === undefined || following < 0 ? undefined : following + (from ? 0 : 1);
    let loaded = await this.store.load(
      name,
      id,
      start && !from ? start.version - 1 : (start?.version ?? 0),
      limit,
    );
    let base = start;
    if (start && !from) {
      // The snapshot's own last commit is read again: it must be on this subject, or the snapshot
      // is of another history (a stream deleted and made again under its name) and is not used.
      const [first] = loaded.events;
      if (first?.sequence === start.version) {
        loaded = { ...loaded, events: loaded.events.filter((e) => e.sequence !== start.version) };
      } else {
        this.snapshots?.onError?.(
          new Error(`the snapshot of ${instance.subject} at ${start.version} is not in the stream`),
          instance.subject,
        );
        base = undefined;
        loaded = await this.store.load(name, id, 0);
      }
    }
    let state = base?.state ?? decider.initialState();
    const commands = new Map(base?.commands);
    let sinceSnapshot = base?.sinceSnapshot ?? 0;
    let commits = base ? base.commits : 0;
    let commit = base?.version ?? 0;
    for (const event of loaded.events) {
      state = decider.evolve(state, event as unknown as E);
      commands.set(event.commandId, event.sequence);
      if (event.sequence !== commit) {
        commit = event.sequence;
        sinceSnapshot++;
        if (commits !== null) commits++;
      }
    }
    const caught = { state, version: loaded.version, commands, sinceSnapshot, commits };
    this.snapshotIfDue(instance, caught);
    return caught;
  }

  /** The aggregate's latest snapshot when it can be trusted: of this schema version, authentic, and whole. */
  private async fromSnapshot<C, E extends AnyEvent, S>(
    instance: Instance<C, E, S>,
  ): Promise<CachedAggregate<S> | undefined> {
    if (!this.snapshots) return undefined;
    const { aggregate, id, subject } = instance;
    try {
      const snapshot = await this.snapshots.store.read(aggregate.name, id);
      if (!snapshot || snapshot.schema !== aggregate.snapshotVersion) return undefined;
      const payload = openAuthenticatedSnapshot(
        this.snapshots.key,
        { aggregate: aggregate.name, subject, version: snapshot.version, schema: snapshot.schema },
        snapshot.body,
      );
      const body = snapshotBody.parse(payload);
      const state = decodeState(body.state);
      if (!hasShapeOf(state, aggregate.decider.initialState()))
        throw new Error(`the snapshot of ${subject} does not hold a ${aggregate.name} state`);
      return {
        state: state as S,
        version: snapshot.version,
        commands: new Map(body.commands),
        sinceSnapshot: 0,
        commits: body.commits ?? null,
      };
    } catch (error) {
      this.snapshots.onError?.(error, subject);
      return undefined;
    }
  }

  /**
   * Every `every` commits, the aggregate's state is written as a snapshot after the command has
   * answered: a write that fails or hangs is only reported, and never holds a command up.
   */
  private snapshotIfDue<C, E extends AnyEvent, S>(
    instance: Instance<C, E, S>,
    current: CachedAggregate<S>,
  ): void {
    const snapshots = this.snapshots;
    if (!snapshots || current.version === 0 || current.sinceSnapshot < snapshots.every) return;
    current.sinceSnapshot = 0;
    const { aggregate, id, subject } = instance;
    const { state, version, commits } = current;
    // The map grows in place with later commands (states are new objects on each evolve): copied now.
    const commands = [...current.commands].slice(-SNAPSHOT_COMMAND_IDS);
    const write = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() =>
        snapshots.store.write(aggregate.name, id, {
          schema: aggregate.snapshotVersion,
          version,
          body: authenticateSnapshot(
            snapshots.key,
            { aggregate: aggregate.name, subject, version, schema: aggregate.snapshotVersion },
            { state: encodeState(state), commands, ...(commits === null ? {} : { commits }) },
          ),
        }),
      )
      .catch((error: unknown) => snapshots.onError?.(error, subject));
    this.snapshotWrites.add(write);
    void write.finally(() => this.snapshotWrites.delete(write));
  }

  private cacheFor<S>(): AggregateCache<S> {
    return this.cache as AggregateCache<S>;
  }
}
