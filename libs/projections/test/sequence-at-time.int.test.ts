import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { sequenceAtTime } from '../src/sequence-at-time';
import { writeUserHistory } from './fixtures';

const env = testEnvironment('seqattime');
let t: TestEventStore;
/** Per burst of commits: the time before it started and its last sequence. */
const bursts: { before: Date; end: number }[] = [];

beforeAll(async () => {
  t = await openTestEventStore(env);
  for (const users of [7, 30, 12]) {
    const before = new Date();
    await sleep(15);
    await writeUserHistory(t.store, users, 2);
    bursts.push({ before, end: await t.store.lastStreamSequence() });
    await sleep(15);
  }
});
afterAll(async () => {
  await t.close();
});

describe('sequenceAtTime', () => {
  it('finds the last sequence whose events occurred at or before a time', async () => {
    expect(await sequenceAtTime(t.store, bursts[0]!.before)).toBe(0);
    expect(await sequenceAtTime(t.store, bursts[1]!.before)).toBe(bursts[0]!.end);
    expect(await sequenceAtTime(t.store, bursts[2]!.before)).toBe(bursts[1]!.end);
    expect(await sequenceAtTime(t.store, new Date())).toBe(bursts[2]!.end);

    const commit = (await t.store.readCommit(40))![0]!;
    const found = await sequenceAtTime(t.store, new Date(commit.occurredAt));
    expect(found).toBeGreaterThanOrEqual(40);
    expect((await t.store.readCommit(found))![0]!.occurredAt).toBe(commit.occurredAt);
    expect(Date.parse((await t.store.readCommit(found + 1))![0]!.occurredAt)).toBeGreaterThan(
      Date.parse(commit.occurredAt),
    );
  });
});
