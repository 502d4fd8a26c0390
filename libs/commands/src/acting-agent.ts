import type { Actor } from '@shop/contracts';
import { ContextSlot } from '@shop/logging';

const actingAgent = new ContextSlot<string>('actingAgentClientId');

/**
 * Runs `fn` on behalf of an outside agent (its OAuth client id): every command `fn` issues records
 * the agent in its events' actor, whichever handler or service issues it, so the audit trail and
 * the analytics tell the shopper's own actions from an agent's.
 */
export function asActingAgent<T>(clientId: string, fn: () => T): T {
  return actingAgent.run(clientId, fn);
}

export function withActingAgent(actor: Actor): Actor {
  const clientId = actingAgent.get();
  return clientId === undefined ? actor : { ...actor, agentClientId: clientId };
}
