import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregateWildcard, systemActor } from '@shop/contracts';
import { openTestEventStore, testEnvironment, type TestEventStore } from '@shop/testing';
import { FollowedCommit, followCommits } from '../src/commit-follower';

const env = testEnvironment('follower');
let t: TestEventStore;

beforeAll(async () => {
  t = await openTestEventStore(env);
});
afterAll(async () => {
  await t?.close();
});

const meta = (expectedSequence: number) => ({
  commandId: randomUUID(),
  correlationId: randomUUID(),
  actor: systemActor,
  expectedSequence,
});
const register = async (userId: string) =>
  (
    await t.store.append(
      'user',
      userId,
      [
        {
          type: 'UserRegistered',
          data: { providerSubject: `sub-${userId}`, email: `${userId}@example.com` },
        },
      ],
      meta(0),
    )
  ).sequence;
const removeFromCart = async (cartId: string) =>
  t.store.append(
    'cart',
    cartId,
    [{ type: 'ItemRemoved', data: { itemId: randomUUID(), reason: 'removed' } }],
    {
      ...meta(0),
    },
  );

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await sleep(20);
  }
}

describe('followCommits', () => {
  it('hears each commit of the followed subjects once and in order, from any writer, and none stored while its consumer was gone is skipped', async () => {
    await register(randomUUID()); // before the follower: not heard
    const heard: FollowedCommit[] = [];
    const states: string[] = [];
    const follower = followCommits(t.store, aggregateWildcard(t.store.subjectPrefix, 'user'), {
      commit: (c) => heard.push(c),
      following: () => states.push('following'),
      interrupted: () => states.push('interrupted'),
    });
    try {
      await until(() => states.at(-1) === 'following', 'following');
      const users = [randomUUID(), randomUUID(), randomUUID()];
      const expected: FollowedCommit[] = [];
      for (const userId of users) {
        await removeFromCart(randomUUID());
        expected.push({ subject: t.store.subject('user', userId), sequence: await register(userId) });
      }
      await until(() => heard.length === 3, 'three commits heard');
      expect(heard).toEqual(expected);

      // The server loses the follower's consumer (an operator deletes it, a node is lost):
      // the follower says it is interrupted, and resumes after the last commit it heard.
      const names: string[] = [];
      for await (const c of t.store.jsm.consumers.list(t.store.stream)) names.push(c.name);
      for (const name of names) await t.store.jsm.consumers.delete(t.store.stream, name);
      const gap = [randomUUID(), randomUUID()];
      for (const userId of gap)
        expected.push({ subject: t.store.subject('user', userId), sequence: await register(userId) });
      await until(() => states.includes('interrupted'), 'the interruption noticed');
      await until(() => states.at(-1) === 'following' && heard.length === 5, 'resumed with the gap heard');
      expect(heard).toEqual(expected);
      expect(states).toEqual(['following', 'interrupted', 'following']);
    } finally {
      await follower.stop();
    }
    expect(states.at(-1)).toBe('interrupted');
  }, 30_000);
});
