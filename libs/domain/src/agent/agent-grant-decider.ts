import { AgentGrantEvent, AgentScope } from '@shop/contracts';
import { Decider, unhandledCommand } from '../decider';
import { DomainError } from '../domain-error';

export interface ApproveAgentGrant {
  type: 'ApproveAgentGrant';
  userId: string;
  clientId: string;
  clientName: string;
  scopes: AgentScope[];
  resource: string;
  refreshTokenHash: string;
}

/** Spends the refresh token hashed `presentedHash` for the one hashed `refreshTokenHash`. */
export interface RefreshAgentGrant {
  type: 'RefreshAgentGrant';
  clientId: string;
  presentedHash: string;
  refreshTokenHash: string;
}

/** By the shopper (from their profile) or by the agent itself (RFC 7009 revocation). */
export interface RevokeAgentGrant {
  type: 'RevokeAgentGrant';
  by: { kind: 'shopper'; userId: string } | { kind: 'agent'; clientId: string };
}

export type AgentGrantCommand = ApproveAgentGrant | RefreshAgentGrant | RevokeAgentGrant;

export interface AgentGrantState {
  exists: boolean;
  revoked: boolean;
  userId: string | null;
  clientId: string | null;
  clientName: string | null;
  scopes: AgentScope[];
  resource: string | null;
  refreshTokenHash: string | null;
  /** Refresh tokens already exchanged: one presented again means it leaked (OAuth 2.1 §4.3.1). */
  spentRefreshHashes: Set<string>;
}

export const initialAgentGrantState = (): AgentGrantState => ({
  exists: false,
  revoked: false,
  userId: null,
  clientId: null,
  clientName: null,
  scopes: [],
  resource: null,
  refreshTokenHash: null,
  spentRefreshHashes: new Set(),
});

export const agentGrantNotFound = () =>
  new DomainError('not_found', 'AgentGrantNotFound', 'No such connected agent');
export const agentGrantInvalid = () =>
  new DomainError('unauthorized', 'AgentGrantInvalid', 'The refresh token is invalid or was revoked');

function approve(command: ApproveAgentGrant, state: AgentGrantState): AgentGrantEvent[] {
  if (state.exists) throw new DomainError('conflict', 'CONFLICT', 'This grant already exists');
  const { type: _type, ...data } = command;
  return [{ type: 'AgentGrantApproved', data }];
}

function refresh(command: RefreshAgentGrant, state: AgentGrantState): AgentGrantEvent[] {
  if (!state.exists || state.revoked || state.clientId !== command.clientId) throw agentGrantInvalid();
  if (state.spentRefreshHashes.has(command.presentedHash))
    return [{ type: 'AgentGrantRevoked', data: { userId: state.userId!, reason: 'refresh-reuse' } }];
  if (command.presentedHash !== state.refreshTokenHash) throw agentGrantInvalid();
  return [{ type: 'AgentGrantRefreshed', data: { refreshTokenHash: command.refreshTokenHash } }];
}

function revoke(command: RevokeAgentGrant, state: AgentGrantState): AgentGrantEvent[] {
  const { by } = command;
  const owns = by.kind === 'shopper' ? state.userId === by.userId : state.clientId === by.clientId;
  // Another shopper's grant is indistinguishable from a missing one.
  if (!state.exists || !owns) throw agentGrantNotFound();
  if (state.revoked) return [];
  return [{ type: 'AgentGrantRevoked', data: { userId: state.userId!, reason: by.kind } }];
}

/**
 * One shopper's consent to one agent, on `agent-grant.<grantId>`: tokens are issued only while
 * it stands, each refresh token is spent once, and revoked is final.
 */
export const agentGrantDecider: Decider<AgentGrantCommand, AgentGrantEvent, AgentGrantState> = {
  initialState: initialAgentGrantState,

  decide(command, state) {
    switch (command.type) {
      case 'ApproveAgentGrant':
        return approve(command, state);
      case 'RefreshAgentGrant':
        return refresh(command, state);
      case 'RevokeAgentGrant':
        return revoke(command, state);
      default:
        return unhandledCommand(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'AgentGrantApproved':
        return { ...state, exists: true, ...event.data };
      case 'AgentGrantRefreshed':
        return {
          ...state,
          spentRefreshHashes: new Set(state.spentRefreshHashes).add(state.refreshTokenHash!),
          refreshTokenHash: event.data.refreshTokenHash,
        };
      case 'AgentGrantRevoked':
        return { ...state, revoked: true };
    }
  },
};
