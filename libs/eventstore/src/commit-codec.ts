import { randomUUID } from 'node:crypto';
import {
  Actor,
  AggregateName,
  Commit,
  commitSchema,
  EventCatalogue,
  NewEvent,
  parseSubject,
  RecordedEvent,
} from '@shop/contracts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface CommitMetadata {
  commandId: string;
  correlationId: string;
  causationId?: string | null;
  actor: Actor;
}

export function buildCommit(
  catalogue: EventCatalogue,
  aggregateId: string,
  events: readonly NewEvent[],
  meta: CommitMetadata,
  now: Date = new Date(),
): Commit {
  return {
    commandId: meta.commandId,
    events: events.map((event) => ({
      id: randomUUID(),
      type: event.type,
      version: catalogue.definition(event.type).version,
      aggregateId,
      occurredAt: now.toISOString(),
      correlationId: meta.correlationId,
      causationId: meta.causationId ?? null,
      actor: meta.actor,
      data: catalogue.validate(event.type, event.data),
    })),
  };
}

export function encodeCommit(commit: Commit): Uint8Array {
  return encoder.encode(JSON.stringify(commit));
}

/** Reads one stored message back into current-version events, with their stream positions. */
export function decodeCommit(
  catalogue: EventCatalogue,
  subjectPrefix: string,
  subject: string,
  sequence: number,
  payload: Uint8Array,
): RecordedEvent[] {
  const commit = commitSchema.parse(JSON.parse(decoder.decode(payload)));
  const { aggregate } = parseSubject(subjectPrefix, subject);
  return commit.events.map((envelope, index) => {
    const { version, data } = catalogue.upcast(envelope);
    return {
      ...envelope,
      version,
      data,
      sequence,
      index,
      subject,
      aggregate: aggregate as AggregateName,
      commandId: commit.commandId,
    };
  });
}
