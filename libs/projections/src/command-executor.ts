import { randomUUID } from 'node:crypto';
import { Actor, AggregateName } from '@shop/contracts';
import { Decider } from '@shop/domain';
import { CommandOutcome, DeciderRunner } from '@shop/eventstore';
import { currentCorrelationId } from '@shop/logging';
import { ConsistencyPositions } from './consistency-token';
import { PositionTracker } from './position-tracker';

export interface ExecuteOptions {
  actor: Actor;
  /** Stable id of the command (from an Idempotency-Key or the causing event) so a retry is stored once. */
  commandId?: string;
  causationId?: string | null;
}

/**
 * Runs a decider against its aggregate, then waits (bounded) until the projections that read
 * that aggregate have applied the commit, so the caller's next read sees its write.
 */
export interface ReadableObservation {
  aggregate: AggregateName;
  /** The commit's stream sequence. */
  sequence: number;
  /** From the append's acknowledgement until the commit was readable, or until the wait gave up. */
  seconds: number;
  /** False when the wait timed out and the caller was answered before its write was readable. */
  readable: boolean;
}

export class CommandExecutor {
  private readonly readableListeners = new Set<(observation: ReadableObservation) => void>();

  constructor(
    private readonly runner: DeciderRunner,
    private readonly tracker: PositionTracker,
    private readonly projections: readonly { name: string; aggregates: readonly AggregateName[] }[],
    private readonly readYourWritesTimeoutMs: number,
  ) {}

  async execute<C, E extends { type: string; data: unknown }, S>(
    decider: Decider<C, E, S>,
    aggregate: AggregateName,
    aggregateId: string,
    command: C,
    options: ExecuteOptions,
  ): Promise<CommandOutcome<E, S>> {
    const outcome = await this.runner.run(decider, aggregate, aggregateId, command, {
      commandId: options.commandId ?? randomUUID(),
      correlationId: currentCorrelationId() ?? randomUUID(),
      causationId: options.causationId ?? null,
      actor: options.actor,
    });
    if (outcome.version > 0) {
      const appendedAt = performance.now();
      const readable = await this.waitReadable(aggregate, outcome.version);
      const readers = this.readersOf(aggregate);
      if (outcome.appended && readers.length > 0) {
        const seconds = (performance.now() - appendedAt) / 1000;
        const sequence = outcome.version;
        for (const listener of this.readableListeners) listener({ aggregate, sequence, seconds, readable });
      }
    }
    return outcome;
  }

  /**
   * Waits (bounded) until every projection reading each aggregate has applied its position: a
   * read that must see writes answered before they were readable. False when the wait timed out.
   */
  async waitUntilReadable(positions: ConsistencyPositions, timeoutMs: number): Promise<boolean> {
    const waits = [...positions].map(([aggregate, sequence]) =>
      this.tracker.waitFor(this.readersOf(aggregate), sequence, timeoutMs),
    );
    return (await Promise.all(waits)).every(Boolean);
  }

  /**
   * Waits (bounded, like a command) until the read models of `aggregate` have applied `version`:
   * for an answer built from a write another process made, so the client's next read sees it.
   */
  waitReadable(aggregate: AggregateName, version: number): Promise<boolean> {
    return this.tracker.waitFor(this.readersOf(aggregate), version, this.readYourWritesTimeoutMs);
  }

  private readersOf(aggregate: AggregateName): string[] {
    return this.projections.filter((p) => p.aggregates.includes(aggregate)).map((p) => p.name);
  }

  /** Reports the write-to-readable time of every appended command (metrics). Returns the way to stop. */
  onReadable(listener: (observation: ReadableObservation) => void): () => void {
    this.readableListeners.add(listener);
    return () => this.readableListeners.delete(listener);
  }
}
