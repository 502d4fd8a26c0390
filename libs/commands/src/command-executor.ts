import { randomUUID } from 'node:crypto';
import { Actor } from '@shop/contracts';
import { Aggregate } from '@shop/domain';
import { withActingAgent } from './acting-agent';
import { CommandOutcome, DeciderRunner } from './decider-runner';
import { ReadYourWrites } from './read-your-writes';

export interface ExecuteOptions {
  actor: Actor;
  /**
   * The request's or the causing event's correlation id, which the commit records; the caller
   * says it (undefined when it has none, and the commit gets a new one).
   */
  correlationId: string | undefined;
  /** Stable id of the command (from an Idempotency-Key or the causing event) so a retry is stored once. */
  commandId?: string;
  causationId?: string | null;
}

type AnyEvent = { type: string; data: unknown };

/** The write side of one aggregate: run a command on an instance, or read an instance's state. */
export interface AggregateCommands<C, E extends AnyEvent, S> {
  /**
   * Runs the command on the instance `id`, then waits (bounded) until the read models of the
   * aggregate have applied the commit, so the caller's next read sees its write.
   */
  execute(id: string, command: C, options: ExecuteOptions): Promise<CommandOutcome<E, S>>;
  /** The instance's current state, deciding nothing (checks before a command or a chain call). */
  state(id: string): Promise<{ state: S; version: number }>;
  /**
   * Waits (bounded, like a command) until the read models have applied `version`: for an answer
   * built from a write another process made, so the client's next read sees it. With the
   * instance's `id`, only its partition of partitioned read models is waited for.
   */
  waitReadable(version: number, id?: string): Promise<boolean>;
}

/** Runs commands through the decider runner and waits for them to be readable, as it is given to. */
export class CommandExecutor {
  constructor(
    private readonly runner: DeciderRunner,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  of<C, E extends AnyEvent, S>(aggregate: Aggregate<C, E, S>): AggregateCommands<C, E, S> {
    const name = aggregate.name;
    return {
      execute: async (id, command, options) => {
        const outcome = await this.runner.run(aggregate, id, command, {
          commandId: options.commandId ?? randomUUID(),
          correlationId: options.correlationId ?? randomUUID(),
          causationId: options.causationId ?? null,
          actor: withActingAgent(options.actor),
        });
        if (outcome.appended) await this.readYourWrites.waitForCommit(name, outcome.version, id);
        else if (outcome.version > 0) await this.readYourWrites.waitReadable(name, outcome.version, id);
        return outcome;
      },
      state: (id) => this.runner.state(aggregate, id),
      waitReadable: (version, id) => this.readYourWrites.waitReadable(name, version, id),
    };
  }
}
