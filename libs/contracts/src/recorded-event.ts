import { AggregateName } from './aggregates';
import { EventEnvelope } from './event-envelope';

/** An event as read back from the stream, with its position. */
export type RecordedEvent<E extends { type: string; data: unknown } = { type: string; data: unknown }> = Omit<
  EventEnvelope,
  'type' | 'data'
> &
  E & {
    /** Stream sequence of the commit that holds the event (the aggregate version after it). */
    sequence: number;
    /** Position of the event inside its commit. */
    index: number;
    subject: string;
    aggregate: AggregateName;
    commandId: string;
  };

/** What a decider emits: the envelope is added when the commit is appended. */
export type NewEvent<E extends { type: string; data: unknown } = { type: string; data: unknown }> = E;
