import { setTimeout as sleep } from 'node:timers/promises';
import { RecordedEvent } from '@shop/contracts';
import { Aggregate } from '@shop/domain';
import { CommitMetadata, EventStore, WrongExpectedSequenceError } from '@shop/eventstore';
import { AggregateCache, AggregateCacheBounds, CachedAggregate } from './aggregate-cache';
import { ConcurrencyExhaustedError } from './errors';

/** What the runner needs of an event store; an in-memory one serves the unit tests. */
export type AggregateStore = Pick<EventStore, 'subject' | 'append' | 'load' | 'lastSequence' | 'readCommit'>;

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
}

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

  constructor(
    private readonly store: AggregateStore,
    options: DeciderRunnerOptions = {},
  ) {
    this.maxAttempts = options.maxAttempts ?? 16;
    this.cache = new AggregateCache(options.cache ?? defaultAggregateCacheBounds);
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
        cache.set(subject, { state, version: result.sequence, commands: current.commands });
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

  /** The current state without deciding anything (read-side checks inside command handlers). */
  async state<C, E extends AnyEvent, S>(
    aggregate: Aggregate<C, E, S>,
    aggregateId: string,
  ): Promise<{ state: S; version: number }> {
    const instance = this.instanceOf(aggregate, aggregateId);
    const cache = this.cacheFor<S>();
    const current = await this.catchUp(instance, cache.get(instance.subject));
    cache.set(instance.subject, current);
    return { state: current.state, version: current.version };
  }

  private instanceOf<C, E extends AnyEvent, S>(aggregate: Aggregate<C, E, S>, id: string): Instance<C, E, S> {
    return { aggregate, id, subject: this.store.subject(aggregate.name, id) };
  }

  private async catchUp<C, E extends AnyEvent, S>(
    { aggregate: { name, decider }, id }: Instance<C, E, S>,
    from: CachedAggregate<S> | undefined,
  ): Promise<CachedAggregate<S>> {
    const loaded = await this.store.load(name, id, from?.version ?? 0);
    let state = from?.state ?? decider.initialState();
    const commands = new Map(from?.commands);
    for (const event of loaded.events) {
      state = decider.evolve(state, event as unknown as E);
      commands.set(event.commandId, event.sequence);
    }
    return { state, version: loaded.version, commands };
  }

  private cacheFor<S>(): AggregateCache<S> {
    return this.cache as AggregateCache<S>;
  }
}
