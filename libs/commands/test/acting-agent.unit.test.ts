import { describe, expect, it } from 'vitest';
import { asActingAgent, withActingAgent } from '../src/acting-agent';

const shopper = { kind: 'user', id: 'u1' } as const;

describe('the acting agent of a command', () => {
  it('leaves the actor as it is outside an agent call', () => {
    expect(withActingAgent(shopper)).toEqual(shopper);
  });

  it('names the agent in the actor of every command issued within its call, across awaits, and only there', async () => {
    const seen = await asActingAgent('client-1', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return withActingAgent(shopper);
    });
    expect(seen).toEqual({ kind: 'user', id: 'u1', agentClientId: 'client-1' });
    expect(withActingAgent(shopper)).toEqual(shopper);
  });
});
