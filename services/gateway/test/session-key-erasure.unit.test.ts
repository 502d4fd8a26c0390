import { describe, expect, it } from 'vitest';
import type { Aggregates } from '@shop/commands';
import type { RecordedEvent } from '@shop/contracts';
import { SessionKeyErasureReaction } from '../src/sessions/session-key-erasure.reaction';

const event = (type: string, data: unknown, aggregateId = 's1') =>
  ({ type, data, aggregateId, aggregate: 'session' }) as unknown as RecordedEvent;

function reactionWith(closedOwners: string[]) {
  const destroyed: string[] = [];
  const aggregates = {
    user: { state: async (id: string) => ({ state: { closed: closedOwners.includes(id) }, version: 1 }) },
  } as unknown as Aggregates;
  const reaction = new SessionKeyErasureReaction(aggregates, {
    destroy: async (keyId: string) => void destroyed.push(keyId),
  });
  return { reaction, destroyed };
}

describe('the session key erasure reaction', () => {
  it("destroys a deleted session's key", async () => {
    const { reaction, destroyed } = reactionWith([]);
    await reaction.handle(event('SessionDeleted', {}));
    expect(destroyed).toEqual(['session:s1']);
  });

  it('destroys the key of a session created for an account already closed, and of no other', async () => {
    const { reaction, destroyed } = reactionWith(['closed-user']);
    await reaction.handle(event('SessionCreated', { userId: 'open-user', title: null }, 'kept'));
    await reaction.handle(event('SessionCreated', { userId: 'closed-user', title: null }, 'late'));
    expect(destroyed).toEqual(['session:late']);
  });
});
