import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregateWildcard, eventCatalogue, SUBJECT_LAYOUT, systemActor } from '@shop/contracts';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { EventStore } from '../src/event-store';
import { WrongExpectedSequenceError } from '../src/errors';

const env = testEnvironment('eventstore');
let t: TestEventStore;
let store: EventStore;

const meta = (commandId = randomUUID()) => ({ commandId, correlationId: randomUUID(), actor: systemActor });
const registered = (email: string) => ({
  type: 'UserRegistered',
  data: { providerSubject: `sub-${email}`, email },
});

beforeAll(async () => {
  t = await openTestEventStore(env);
  store = t.store;
});
afterAll(async () => t.close());

describe('EventStore on JetStream', () => {
  it('creates the stream from the definition in infra/', async () => {
    const info = await store.jsm.streams.info(env.stream);
    expect(info.config.subjects).toEqual([aggregateWildcard(env.subjectPrefix)]);
    expect(info.config.description).toBe(SUBJECT_LAYOUT);
    expect(info.config.deny_delete).toBe(true);
    expect(info.config.max_age).toBe(0);
    await store.provision();
  });

  it('lets exactly one of two concurrent appends at the same expected sequence win', async () => {
    const id = randomUUID();
    const results = await Promise.allSettled([
      store.append('user', id, [registered('a@example.com')], { ...meta(), expectedSequence: 0 }),
      store.append('user', id, [registered('b@example.com')], { ...meta(), expectedSequence: 0 }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedSequenceError);
    const loaded = await store.load('user', id);
    expect(loaded.events).toHaveLength(1);
  });

  it('stores a command id published twice once, and answers the retry with the stored events', async () => {
    const id = randomUUID();
    const commandId = randomUUID();
    const first = await store.append('user', id, [registered('c@example.com')], {
      ...meta(commandId),
      expectedSequence: 0,
    });
    const second = await store.append('user', id, [registered('c@example.com')], {
      ...meta(commandId),
      expectedSequence: 0,
    });
    expect(second.duplicate).toBe(true);
    expect(second.sequence).toBe(first.sequence);
    expect(second.events.map((e) => e.id)).toEqual(first.events.map((e) => e.id));
    expect((await store.load('user', id)).events).toHaveLength(1);
  });

  it('keeps a commit of several events atomic and ordered', async () => {
    const id = randomUUID();
    const result = await store.append(
      'user',
      id,
      [registered('d@example.com'), { type: 'DisplayNameSet', data: { displayName: 'Dee' } }],
      { ...meta(), expectedSequence: 0 },
    );
    const loaded = await store.load('user', id);
    expect(loaded.version).toBe(result.sequence);
    expect(loaded.events.map((e) => [e.type, e.index, e.sequence])).toEqual([
      ['UserRegistered', 0, result.sequence],
      ['DisplayNameSet', 1, result.sequence],
    ]);
  });

  it('refuses event data that does not match its schema before anything is stored', async () => {
    const id = randomUUID();
    await expect(
      store.append('user', id, [{ type: 'DisplayNameSet', data: { displayName: '' } }], {
        ...meta(),
        expectedSequence: 0,
      }),
    ).rejects.toThrow(/DisplayNameSet/);
    expect(await store.lastSequence(store.subject('user', id))).toBe(0);
  });

  it('loads long histories past the direct-read limit through one ordered consumer', async () => {
    const id = randomUUID();
    let version = (
      await store.append('user', id, [registered('e@example.com')], { ...meta(), expectedSequence: 0 })
    ).sequence;
    for (let i = 0; i < 40; i++) {
      version = (
        await store.append('user', id, [{ type: 'DisplayNameSet', data: { displayName: `name ${i}` } }], {
          ...meta(),
          expectedSequence: version,
        })
      ).sequence;
    }
    const loaded = await store.load('user', id);
    expect(loaded.events).toHaveLength(41);
    expect(loaded.version).toBe(version);
    expect((loaded.events.at(-1)!.data as { displayName: string }).displayName).toBe('name 39');
    const tail = await store.load('user', id, loaded.events[35]!.sequence);
    expect(tail.events).toHaveLength(5);
  });

  it('takes a data key and seals only when an event holds personal data: an untitled session is stored as it is', async () => {
    const asked: string[] = [];
    const counting = await EventStore.create(t.nc, {
      stream: env.stream,
      subjectPrefix: env.subjectPrefix,
      catalogue: eventCatalogue,
      dataKeys: {
        keyForWriting: (keyId) => {
          asked.push(keyId);
          return t.dataKeys.keyForWriting(keyId);
        },
        keysForReading: (keyIds) => t.dataKeys.keysForReading(keyIds),
      },
    });
    const id = randomUUID();
    const userId = randomUUID();
    const storedText = async (sequence: number) =>
      new TextDecoder().decode((await store.jsm.streams.getMessage(env.stream, { seq: sequence })).data);

    const created = await counting.append(
      'session',
      id,
      [{ type: 'SessionCreated', data: { userId, title: null } }],
      { ...meta(), expectedSequence: 0 },
    );
    expect(asked).toEqual([]);
    expect(await storedText(created.sequence)).not.toContain('personalData');

    const renamed = await counting.append(
      'session',
      id,
      [{ type: 'SessionRenamed', data: { title: 'Winter boots', generated: false } }],
      { ...meta(), expectedSequence: created.sequence },
    );
    expect(asked).toEqual([`session:${id}`]);
    expect(await storedText(renamed.sequence)).toContain('"personalData":{"kid":"session:');
    expect(await storedText(renamed.sequence)).not.toContain('Winter boots');
    expect((await store.load('session', id)).events.map((e) => e.data)).toEqual([
      { userId, title: null },
      { title: 'Winter boots', generated: false },
    ]);
  });

  it('reads the whole stream in order for replays', async () => {
    const last = await store.lastStreamSequence();
    const sequences: number[] = [];
    for await (const commit of store.read(1)) sequences.push(commit[0]!.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(sequences.at(-1)).toBe(last);
  });
});
