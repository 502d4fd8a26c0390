import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineEvent, EventCatalogue, subjectFor } from '@shop/contracts';
import { buildCommit, decodeCommit, encodeCommit } from '../src/commit-codec';

const renamedV2 = defineEvent({
  type: 'ThingRenamed',
  version: 2,
  aggregate: 'user',
  description: 'v2 split the name',
  schema: z.object({ first: z.string(), last: z.string() }),
});
const noted = defineEvent({
  type: 'ThingNoted',
  version: 1,
  aggregate: 'user',
  description: 'a note',
  schema: z.object({ note: z.string(), tags: z.array(z.string()) }),
});
const catalogue = new EventCatalogue(
  [renamedV2, noted],
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
const meta = { commandId: 'cmd-1', correlationId: 'req-1', actor: { kind: 'user' as const, id: 'u' } };
const subject = subjectFor('evt', 'user', 'u1');
const encoder = new TextEncoder();

describe("decodeCommit in 'trusted' mode (replay)", () => {
  it('reads a commit exactly as the validating decoder does', () => {
    const commit = buildCommit(
      catalogue,
      'u1',
      [
        { type: 'ThingNoted', data: { note: 'hello', tags: ['a', 'b'] } },
        { type: 'ThingRenamed', data: { first: 'Ada', last: 'Lovelace' } },
      ],
      meta,
    );
    const payload = encodeCommit(commit);
    expect(decodeCommit(catalogue, 'evt', subject, 7, payload, null, 'trusted')).toEqual(
      decodeCommit(catalogue, 'evt', subject, 7, payload),
    );
  });

  it('gives each event the fields of its envelope in their stored order, then its position', () => {
    const commit = buildCommit(
      catalogue,
      'u1',
      [{ type: 'ThingNoted', data: { note: 'n', tags: [] } }],
      meta,
    );
    const stored = {
      ...commit,
      events: [
        ...commit.events,
        { ...commit.events[0]!, type: 'ThingRenamed', version: 1, data: { name: 'A B' } },
      ],
    };
    const fields = [
      'id',
      'type',
      'version',
      'aggregateId',
      'occurredAt',
      'correlationId',
      'causationId',
      'actor',
      'data',
      'sequence',
      'index',
      'subject',
      'aggregate',
      'commandId',
    ];
    for (const mode of ['trusted', 'validated'] as const) {
      const events = decodeCommit(
        catalogue,
        'evt',
        subject,
        3,
        encoder.encode(JSON.stringify(stored)),
        null,
        mode,
      );
      expect(events.map((e) => Object.keys(e))).toEqual([fields, fields]);
      expect(events[1]).toMatchObject({
        version: 2,
        data: { first: 'A', last: 'B' },
        index: 1,
        aggregate: 'user',
      });
    }
  });

  it('takes current-version data as the append validated it, and upcasts (and validates) only older versions', () => {
    const commit = buildCommit(
      catalogue,
      'u1',
      [{ type: 'ThingNoted', data: { note: 'n', tags: [] } }],
      meta,
    );
    const stored = {
      ...commit,
      events: [
        ...commit.events,
        { ...commit.events[0]!, type: 'ThingRenamed', version: 1, data: { name: 'Ada King Lovelace' } },
      ],
    };
    const validate = vi.spyOn(catalogue, 'validate');
    const events = decodeCommit(
      catalogue,
      'evt',
      subject,
      9,
      encoder.encode(JSON.stringify(stored)),
      null,
      'trusted',
    );
    expect(validate.mock.calls.map(([type]) => type)).toEqual(['ThingRenamed']);
    validate.mockRestore();
    expect(events.map((e) => [e.type, e.version, e.data, e.index, e.sequence])).toEqual([
      ['ThingNoted', 1, { note: 'n', tags: [] }, 0, 9],
      ['ThingRenamed', 2, { first: 'Ada', last: 'King Lovelace' }, 1, 9],
    ]);
  });

  it('still refuses what is not a commit, an unknown type and a version newer than this build', () => {
    const envelope = buildCommit(
      catalogue,
      'u1',
      [{ type: 'ThingNoted', data: { note: 'n', tags: [] } }],
      meta,
    ).events[0]!;
    const decode = (value: unknown) =>
      decodeCommit(catalogue, 'evt', subject, 1, encoder.encode(JSON.stringify(value)), null, 'trusted');
    expect(() =>
      decodeCommit(catalogue, 'evt', subject, 1, encoder.encode('{not json'), null, 'trusted'),
    ).toThrow();
    expect(() => decode({ commandId: 'c', events: [] })).toThrow(/not a commit/);
    expect(() => decode({ events: [envelope] })).toThrow(/not a commit/);
    expect(() => decode({ commandId: 'c', events: [{ ...envelope, version: '1' }] })).toThrow(/not a commit/);
    expect(() => decode({ commandId: 'c', events: [{ ...envelope, type: 'Nope' }] })).toThrow(/Nope/);
    expect(() => decode({ commandId: 'c', events: [{ ...envelope, version: 2 }] })).toThrow(/newer/);
  });
});
