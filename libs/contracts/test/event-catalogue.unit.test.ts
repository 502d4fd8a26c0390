import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { commitSchema, eventEnvelopeSchema } from '../src/event-envelope';
import { defineEvent } from '../src/event-definition';
import { EventCatalogue, EventDataError, UnknownEventTypeError } from '../src/event-catalogue';
import { eventCatalogue } from '../src/domain-events';

const renamedV2 = defineEvent({
  type: 'ThingRenamed',
  version: 2,
  aggregate: 'user',
  description: 'v2 split the name',
  schema: z.object({ first: z.string(), last: z.string() }),
});
const catalogue = new EventCatalogue(
  [renamedV2],
  [
    {
      type: 'ThingRenamed',
      fromVersion: 1,
      up: (d) => {
        const [first, ...rest] = String((d as { name: string }).name).split(' ');
        return { first, last: rest.join(' ') };
      },
    },
  ],
);

describe('event envelope', () => {
  const envelope = {
    id: randomUUID(),
    type: 'UserRegistered',
    version: 1,
    aggregateId: randomUUID(),
    occurredAt: new Date().toISOString(),
    correlationId: 'req-1',
    causationId: null,
    actor: { kind: 'user', id: 'u' },
    data: {},
  };

  it('accepts a complete envelope and refuses a partial one', () => {
    expect(eventEnvelopeSchema.parse(envelope)).toEqual(envelope);
    const { correlationId: _c, ...missing } = envelope;
    expect(eventEnvelopeSchema.safeParse(missing).success).toBe(false);
    expect(eventEnvelopeSchema.safeParse({ ...envelope, id: 'nope' }).success).toBe(false);
    expect(eventEnvelopeSchema.safeParse({ ...envelope, actor: { kind: 'robot', id: null } }).success).toBe(
      false,
    );
  });

  it('holds at least one event in a commit', () => {
    expect(commitSchema.safeParse({ commandId: 'c', events: [] }).success).toBe(false);
    expect(commitSchema.safeParse({ commandId: 'c', events: [envelope] }).success).toBe(true);
  });
});

describe('event catalogue', () => {
  it('upcasts old versions to the current one and validates the result', () => {
    expect(
      catalogue.upcast({ type: 'ThingRenamed', version: 1, data: { name: 'Ada King Lovelace' } }),
    ).toEqual({
      version: 2,
      data: { first: 'Ada', last: 'King Lovelace' },
    });
    expect(
      catalogue.upcast({ type: 'ThingRenamed', version: 2, data: { first: 'A', last: 'B' } }).version,
    ).toBe(2);
  });

  it('refuses versions newer than it knows, unknown types, and invalid data', () => {
    expect(() => catalogue.upcast({ type: 'ThingRenamed', version: 3, data: {} })).toThrow(/newer/);
    expect(() => catalogue.upcast({ type: 'Nope', version: 1, data: {} })).toThrow(UnknownEventTypeError);
    expect(() => catalogue.validate('ThingRenamed', { first: 1 })).toThrow(EventDataError);
  });

  it('requires an upcaster for every older version and refuses duplicate types', () => {
    expect(() => new EventCatalogue([renamedV2])).toThrow(/no upcaster from v1/);
    expect(() => new EventCatalogue([renamedV2, renamedV2], [])).toThrow(/defined twice/);
  });

  it('knows every event of the brief by its name', () => {
    for (const type of ['UserRegistered', 'ItemAdded', 'ItemRemoved', 'ChatMessageAppended']) {
      expect(eventCatalogue.has(type)).toBe(true);
    }
  });
});
