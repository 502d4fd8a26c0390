import { randomUUID } from 'node:crypto';
import {
  Actor,
  AggregateName,
  Commit,
  commitSchema,
  EventCatalogue,
  EventEnvelope,
  NewEvent,
  parseSubject,
  RecordedEvent,
} from '@shop/contracts';
import { openEnvelopeData, sealedKeyIds } from './personal-data-cipher';

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

/**
 * How much a reader checks again. `validated` parses every commit with its schema and validates
 * every event; `trusted` is for replays (rebuilds, inspection copies) of what `buildCommit`
 * validated at append: only the shape of a commit is checked, current-version data is taken as
 * stored, and only older versions go through their upcasters (which validate). An unknown type or
 * a version newer than this build still throws.
 */
export type DecodeMode = 'validated' | 'trusted';

function isStoredCommit(value: unknown): value is Commit {
  const commit = value as Partial<Commit> | null;
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

export function parseCommit(payload: Uint8Array, mode: DecodeMode = 'validated'): Commit {
  const value: unknown = JSON.parse(decoder.decode(payload));
  if (mode === 'validated') return commitSchema.parse(value);
  if (!isStoredCommit(value)) throw new Error('the message is not a commit');
  return value;
}

/** The data key ids a stored commit's sealed fields need. */
export function commitKeyIds(
  catalogue: EventCatalogue,
  commit: Commit,
  into = new Set<string>(),
): Set<string> {
  for (const envelope of commit.events) sealedKeyIds(catalogue, envelope, into);
  return into;
}

/**
 * A stored commit as current-version events with their stream positions. Sealed personal fields
 * are opened with `keys` (null: a reader without keys, which sees them as erased) before the
 * upcasters run, so upcasters and readers only ever see the clear shape. The commit is the
 * caller's freshly parsed one and is consumed: its envelopes become the events, as a copy of
 * each was most of what a replay allocated.
 */
export function recordCommit(
  catalogue: EventCatalogue,
  subjectPrefix: string,
  subject: string,
  sequence: number,
  commit: Commit,
  keys: ReadonlyMap<string, Buffer | null> | null,
  mode: DecodeMode = 'validated',
): RecordedEvent[] {
  const { aggregate } = parseSubject(subjectPrefix, subject);
  const events: RecordedEvent[] = [];
  for (let index = 0; index < commit.events.length; index++) {
    const envelope = commit.events[index]!;
    let version = envelope.version;
    let data = openEnvelopeData(catalogue, envelope, keys);
    if (mode !== 'trusted' || version !== catalogue.definition(envelope.type).version) {
      ({ version, data } = catalogue.upcast({ type: envelope.type, version, data }));
    }
    const event = envelope as EventEnvelope & Record<string, unknown>;
    event.version = version;
    event.data = data;
    event.sequence = sequence;
    event.index = index;
    event.subject = subject;
    event.aggregate = aggregate as AggregateName;
    event.commandId = commit.commandId;
    events.push(event as unknown as RecordedEvent);
  }
  return events;
}

/** Reads one stored message back into current-version events, with their stream positions. */
export function decodeCommit(
  catalogue: EventCatalogue,
  subjectPrefix: string,
  subject: string,
  sequence: number,
  payload: Uint8Array,
  keys: ReadonlyMap<string, Buffer | null> | null = null,
  mode: DecodeMode = 'validated',
): RecordedEvent[] {
  return recordCommit(catalogue, subjectPrefix, subject, sequence, parseCommit(payload, mode), keys, mode);
}
