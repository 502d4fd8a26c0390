import { AggregateName, eventCatalogue, NewEvent, RecordedEvent } from '@shop/contracts';
import {
  AppendOptions,
  AppendResult,
  buildCommit,
  LoadedEvents,
  WrongExpectedSequenceError,
} from '@shop/eventstore';
import { AggregateStore } from '../src/decider-runner';

/** The stream's semantics (per-subject expected sequence, command-id dedupe) without I/O. */
export class InMemoryStore implements AggregateStore {
  readonly messages: { subject: string; sequence: number; events: RecordedEvent[] }[] = [];
  readonly seenCommands = new Map<string, number>();
  appends = 0;
  loads = 0;
  /** Runs before each append: lets a test slip a concurrent writer in. */
  beforeAppend: ((subject: string) => Promise<void>) | null = null;

  subject(aggregate: AggregateName, id: string): string {
    return `t.${aggregate}.${id}`;
  }

  async append(
    aggregate: AggregateName,
    id: string,
    events: readonly NewEvent[],
    options: AppendOptions,
  ): Promise<AppendResult> {
    const subject = this.subject(aggregate, id);
    const hook = this.beforeAppend;
    this.beforeAppend = null;
    await hook?.(subject);
    this.appends++;
    const seen = this.seenCommands.get(options.commandId);
    if (seen !== undefined) {
      return {
        sequence: seen,
        duplicate: true,
        events: this.messages.find((m) => m.sequence === seen)!.events,
      };
    }
    if ((await this.lastSequence(subject)) !== options.expectedSequence) {
      throw new WrongExpectedSequenceError(subject, options.expectedSequence);
    }
    const sequence = this.messages.length + 1;
    const commit = buildCommit(eventCatalogue, id, events, options);
    const recorded = commit.events.map((e, index) => ({
      ...e,
      sequence,
      index,
      subject,
      aggregate,
      commandId: options.commandId,
    })) as RecordedEvent[];
    this.messages.push({ subject, sequence, events: recorded });
    this.seenCommands.set(options.commandId, sequence);
    return { sequence, duplicate: false, events: recorded };
  }

  async load(
    aggregate: AggregateName,
    id: string,
    afterSequence = 0,
    commits?: number,
  ): Promise<LoadedEvents> {
    this.loads++;
    const subject = this.subject(aggregate, id);
    const mine = this.messages
      .filter((m) => m.subject === subject && m.sequence > afterSequence)
      .slice(0, commits);
    return { events: mine.flatMap((m) => m.events), version: mine.at(-1)?.sequence ?? afterSequence };
  }

  async commitCount(subject: string): Promise<number> {
    return this.messages.filter((m) => m.subject === subject).length;
  }

  async lastSequence(subject: string): Promise<number> {
    return this.messages.filter((m) => m.subject === subject).at(-1)?.sequence ?? 0;
  }

  async readCommit(sequence: number): Promise<RecordedEvent[] | null> {
    return this.messages.find((m) => m.sequence === sequence)?.events ?? null;
  }
}
