import { z } from 'zod';
import { defineEvent } from '../event-definition';

/** What an outside agent may be granted: each scope opens the MCP tools of one area. */
export const agentScopes = ['catalog', 'cart', 'checkout', 'orders'] as const;
export type AgentScope = (typeof agentScopes)[number];

export const AgentClientRegistered = defineEvent({
  type: 'AgentClientRegistered',
  version: 1,
  aggregate: 'agent-client',
  description:
    'An outside agent (an MCP client) registered itself (OAuth dynamic client registration, RFC 7591): its name as the consent page shows it and the redirect URIs its authorization codes may go to.',
  schema: z.object({
    clientName: z.string().min(1).max(200),
    redirectUris: z.array(z.url()).min(1).max(10),
  }),
});

export const AgentGrantApproved = defineEvent({
  type: 'AgentGrantApproved',
  version: 1,
  aggregate: 'agent-grant',
  description:
    "A shopper's approval of an outside agent, exchanged for its first tokens: the scopes it may use on the shopper's behalf, the resource (MCP server) its tokens are for, and the hash of its refresh token.",
  schema: z.object({
    userId: z.uuid(),
    clientId: z.uuid(),
    clientName: z.string().min(1).max(200),
    scopes: z.array(z.enum(agentScopes)).min(1),
    resource: z.url(),
    refreshTokenHash: z.string().length(64),
  }),
});

export const AgentGrantRefreshed = defineEvent({
  type: 'AgentGrantRefreshed',
  version: 1,
  aggregate: 'agent-grant',
  description:
    'An agent exchanged its refresh token for new tokens; the previous refresh token is spent and this hash is the only one the grant accepts next.',
  schema: z.object({ refreshTokenHash: z.string().length(64) }),
});

export const AgentGrantRevoked = defineEvent({
  type: 'AgentGrantRevoked',
  version: 1,
  aggregate: 'agent-grant',
  description:
    'The grant ended: the shopper disconnected the agent from their profile, the agent revoked its own token, or a spent refresh token was presented again. Its tokens stop working at once.',
  schema: z.object({
    userId: z.uuid(),
    reason: z.enum(['shopper', 'agent', 'refresh-reuse']),
  }),
});

export const agentClientEvents = [AgentClientRegistered] as const;
export const agentGrantEvents = [AgentGrantApproved, AgentGrantRefreshed, AgentGrantRevoked] as const;
