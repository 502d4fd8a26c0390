import { setTimeout as sleep } from 'node:timers/promises';
import { AggregateName, RecordedEvent } from '@shop/contracts';
import { Decider } from '@shop/domain';
import { AggregateCache, CachedAggregate } from './aggregate-cache';
import { CommitMetadata } from './commit-codec';
import { ConcurrencyExhaustedError, WrongExpectedSequenceError } from './errors';
import { EventStore } from './event-store';

/** What the runner needs of an event store; an in-memory one serves the unit tests. */
export type AggregateStore = Pick<EventStore, 'subject' | 'append' | 'load' | 'lastSequence' | 'readCommit'>;

type AnyEvent = { type: string; data: unknown };

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
  cacheCapacity?: number;
}

/**
 * Load, decide, append; on a concurrent write, reload and decide again. The decider sees
 * the state it is appended against, so no invariant can be broken by a race.
 */
export class DeciderRunner {
  private readonly caches = new WeakMap<object, AggregateCache<unknown>>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly maxAttempts: number;
  private readonly cacheCapacity: number;

  constructor(
    private readonly store: AggregateStore,
    options: DeciderRunnerOptions = {},
  ) {
    this.maxAttempts = options.maxAttempts ?? 16;
    this.cacheCapacity = options.cacheCapacity ?? 10_000;
  }

  /**
   * Commands on one aggregate run one after another inside this process, so they never race
   * each other; races with other processes are settled by the expected sequence and a retry.
   */
  run<C, E extends AnyEvent, S>(
    decider: Decider<C, E, S>,
    aggregate: AggregateName,
    aggregateId: string,
    command: C,
    meta: CommitMetadata,
  ): Promise<CommandOutcome<E, S>> {
    const subject = this.store.subject(aggregate, aggregateId);
    const previous = this.queues.get(subject) ?? Promise.resolve();
    const next = previous.then(() => this.decideAndAppend(decider, aggregate, aggregateId, command, meta));
    const settled = next.catch(() => undefined);
    this.queues.set(subject, settled);
    void settled.then(() => {
      if (this.queues.get(subject) === settled) this.queues.delete(subject);
    });
    return next;
  }

  private async decideAndAppend<C, E extends AnyEvent, S>(
    decider: Decider<C, E, S>,
    aggregate: AggregateName,
    aggregateId: string,
    command: C,
    meta: CommitMetadata,
  ): Promise<CommandOutcome<E, S>> {
    const subject = this.store.subject(aggregate, aggregateId);
    const cache = this.cacheFor<S>(decider);
    let current = cache.get(subject);
    let fresh = false;
    if (!current) {
      current = await this.catchUp(decider, aggregate, aggregateId, undefined);
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
          current = await this.catchUp(decider, aggregate, aggregateId, current);
          cache.set(subject, current);
          fresh = true;
          continue;
        }
        throw error;
      }

      if (decided.length === 0) {
        if (!fresh && (await this.store.lastSequence(subject)) !== current.version) {
          current = await this.catchUp(decider, aggregate, aggregateId, current);
          cache.set(subject, current);
          fresh = true;
          continue;
        }
        return { events: [], state: current.state, version: current.version, appended: false };
      }

      try {
        const result = await this.store.append(aggregate, aggregateId, decided, {
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
        current = await this.catchUp(decider, aggregate, aggregateId, current);
        cache.set(subject, current);
        fresh = true;
      }
    }
    throw new ConcurrencyExhaustedError(subject, this.maxAttempts);
  }

  /** The current state without deciding anything (read-side checks inside command handlers). */
  async state<C, E extends AnyEvent, S>(
    decider: Decider<C, E, S>,
    aggregate: AggregateName,
    aggregateId: string,
  ): Promise<{ state: S; version: number }> {
    const subject = this.store.subject(aggregate, aggregateId);
    const cache = this.cacheFor<S>(decider);
    const cached = cache.get(subject);
    const current = await this.catchUp(decider, aggregate, aggregateId, cached);
    cache.set(subject, current);
    return { state: current.state, version: current.version };
  }

  private async catchUp<E extends AnyEvent, S>(
    decider: Decider<unknown, E, S>,
    aggregate: AggregateName,
    aggregateId: string,
    from: CachedAggregate<S> | undefined,
  ): Promise<CachedAggregate<S>> {
    const loaded = await this.store.load(aggregate, aggregateId, from?.version ?? 0);
    let state = from?.state ?? decider.initialState();
    const commands = new Map(from?.commands);
    for (const event of loaded.events) {
      state = decider.evolve(state, event as unknown as E);
      commands.set(event.commandId, event.sequence);
    }
    return { state, version: loaded.version, commands };
  }

  private cacheFor<S>(decider: object): AggregateCache<S> {
    let cache = this.caches.get(decider);
    if (!cache) {
      cache = new AggregateCache<unknown>(this.cacheCapacity);
      this.caches.set(decider, cache);
    }
    return cache as AggregateCache<S>;
  }
}
