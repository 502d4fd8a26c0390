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

interface StoredCommit {
  commandId: string;
  events: (Omit<RecordedEvent, 'sequence' | 'index' | 'subject' | 'aggregate' | 'commandId'> & {
    version: number;
  })[];
}

function isStoredCommit(value: unknown): value is StoredCommit {
  const commit = value as Partial<StoredCommit> | null;
  return (
    typeof commit === 'object' &&
    commit !== null &&
    typeof commit.commandId === 'string' &&
    Array.isArray(commit.events) &&
    commit.events.length > 0 &&
    commit.events.every(
      (e) => typeof e === 'object' && e !== null && typeof e.type === 'string' && Number.isInteger(e.version),
    )
  );
}

/**
 * Reads one stored message back for a replay (a rebuild, an inspection copy). Every event was
 * validated by `buildCommit` when it was appended, so current-version data is taken as stored:
 * only its shape as a commit is checked. Older versions go through their upcasters and are
 * validated, as `decodeCommit` does. An unknown type or a newer version still throws.
 */
export function decodeTrustedCommit(
  catalogue: EventCatalogue,
  subjectPrefix: string,
  subject: string,
  sequence: number,
  payload: Uint8Array,
): RecordedEvent[] {
  const commit: unknown = JSON.parse(decoder.decode(payload));
  if (!isStoredCommit(commit)) throw new Error(`message ${sequence} is not a commit`);
  const aggregate = parseSubject(subjectPrefix, subject).aggregate as AggregateName;
  return commit.events.map((envelope, index) => {
    const current = catalogue.definition(envelope.type).version;
    const { version, data } =
      envelope.version === current ? { version: current, data: envelope.data } : catalogue.upcast(envelope);
    return {
      ...envelope,
      version,
      data,
      sequence,
      index,
      subject,
      aggregate,
      commandId: commit.commandId,
    };
  });
}
