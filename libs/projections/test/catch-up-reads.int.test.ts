import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionOfSubject } from '@shop/contracts';
import { EventStore } from '@shop/eventstore';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { CatchUpReads, CatchUpRequest, CatchUpWindow } from '../src/catch-up-reads';
import { writeUserHistory } from './fixtures';

const env = testEnvironment('catchupreads');
let t: TestEventStore;

beforeAll(async () => {
  t = await openTestEventStore(env);
});
afterAll(async () => {
  await t.close();
});

/** The store, counting its stream reads. */
function counted(store: EventStore): { store: EventStore; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(store, {
    get(target, key) {
      if (key === 'readRaw') {
        return (...args: Parameters<EventStore['readRaw']>) => {
          reads++;
          return target.readRaw(...args);
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: proxy, reads: () => reads };
}

describe('reads shared by catching-up runners', () => {
  it('read the stream once per round, serve a member that asks late from the last round, and lose or repeat nothing', async () => {
    const before = await t.store.lastStreamSequence();
    await writeUserHistory(t.store, 24, 1);
    const end = await t.store.lastStreamSequence();
    const expected: [number[], number[]] = [[], []];
    for await (const raw of t.store.readRaw(before + 1, end))
      expected[partitionOfSubject(t.store.subjectPrefix, raw.subject, 2)]!.push(raw.sequence);

    const { store, reads } = counted(t.store);
    const shared = new CatchUpReads(store, { maxMessages: 16, gatherMs: 20 });
    const members = [{}, {}] as const;
    const request = (index: number, from: number): CatchUpRequest => ({
      aggregates: new Set(['user']),
      partition: { index, count: 2 },
      from,
      until: end,
    });
    const got: [number[], number[]] = [[], []];
    const through = [before, before];
    const take = (index: number, window: CatchUpWindow) => {
      got[index]!.push(...window.items.map((item) => item.sequence));
      expect(window.items.every((item) => item.events !== null && item.events.length > 0)).toBe(true);
      through[index] = window.through;
    };
    const ask = async (index: number) =>
      take(index, await shared.read(members[index]!, request(index, through[index]! + 1)));
    for (const member of members) shared.join(member);

    // Both ask: one read for both.
    await Promise.all([ask(0), ask(1)]);
    expect(reads()).toBe(1);
    expect(through).toEqual([before + 16, before + 16]);
    // The second is still writing when the first asks again: after the wait, a round for the first.
    await ask(0);
    expect(reads()).toBe(2);
    // Asking late for what that round read, the second is served from it without a read of its own.
    await ask(1);
    expect(reads()).toBe(2);
    expect(through).toEqual([before + 32, before + 32]);
    while (through.some((at) => at < end)) await Promise.all([ask(0), ask(1)]);
    for (const member of members) shared.leave(member);

    expect(got).toEqual(expected);
    expect(reads()).toBe(Math.ceil((end - before) / 16));
  });

  it('does not serve a member that starts over from an earlier position out of a round that kept its messages from a later one', async () => {
    const before = await t.store.lastStreamSequence();
    await writeUserHistory(t.store, 12, 1);
    const end = await t.store.lastStreamSequence();
    const own: number[] = [];
    for await (const raw of t.store.readRaw(before + 1, end))
      if (partitionOfSubject(t.store.subjectPrefix, raw.subject, 2) === 1) own.push(raw.sequence);

    const shared = new CatchUpReads(t.store, { maxMessages: 16, gatherMs: 20 });
    const [a, b] = [{}, {}];
    const request = (index: number, from: number): CatchUpRequest => ({
      aggregates: new Set(['user']),
      partition: { index, count: 2 },
      from,
      until: end,
    });
    shared.join(a);
    shared.join(b);
    // One round for both, b standing further on: the round keeps b's messages from there only.
    await Promise.all([shared.read(a, request(0, before + 1)), shared.read(b, request(1, before + 9))]);
    // b's runner starts over from its checkpoint, further back but inside that round's range.
    shared.leave(b);
    shared.join(b);
    const window = await shared.read(b, request(1, before + 3));
    shared.leave(a);
    shared.leave(b);

    expect(window.items.map((item) => item.sequence)).toEqual(
      own.filter((sequence) => sequence >= before + 3 && sequence <= window.through),
    );
  });
});
