import { describe, expect, it } from 'vitest';
import { AgentClientEvent, AgentGrantEvent } from '@shop/contracts';
import { agentClientDecider } from '../src/agent/agent-client-decider';
import { agentGrantDecider } from '../src/agent/agent-grant-decider';
import { deciderSpec } from './decider-spec';

const grant = deciderSpec(agentGrantDecider);
const client = deciderSpec(agentClientDecider);
const shopper = '11111111-1111-4111-8111-111111111111';
const stranger = '22222222-2222-4222-8222-222222222222';
const agent = '33333333-3333-4333-8333-333333333333';
const otherAgent = '44444444-4444-4444-8444-444444444444';
const hash = (c: string) => c.repeat(64);
const approved: AgentGrantEvent = {
  type: 'AgentGrantApproved',
  data: {
    userId: shopper,
    clientId: agent,
    clientName: 'Desk assistant',
    scopes: ['catalog', 'cart'],
    resource: 'https://shop.example.com/mcp',
    refreshTokenHash: hash('a'),
  },
};
const refreshed: AgentGrantEvent = { type: 'AgentGrantRefreshed', data: { refreshTokenHash: hash('b') } };
const revokedByShopper: AgentGrantEvent = {
  type: 'AgentGrantRevoked',
  data: { userId: shopper, reason: 'shopper' },
};

describe('agent client decider', () => {
  it('registers a client once', () => {
    const registered: AgentClientEvent = {
      type: 'AgentClientRegistered',
      data: { clientName: 'Desk assistant', redirectUris: ['http://127.0.0.1:5000/cb'] },
    };
    client
      .given()
      .when({ type: 'RegisterAgentClient', ...registered.data })
      .then([registered]);
    client
      .given(registered)
      .when({ type: 'RegisterAgentClient', ...registered.data })
      .thenThrows('CONFLICT');
  });
});

describe('agent grant decider', () => {
  it('approves a grant once', () => {
    grant
      .given()
      .when({ type: 'ApproveAgentGrant', ...approved.data })
      .then([approved]);
    grant
      .given(approved)
      .when({ type: 'ApproveAgentGrant', ...approved.data })
      .thenThrows('CONFLICT');
  });

  it('spends each refresh token once, for its own client, and revokes the grant when a spent one comes back', () => {
    const refresh = {
      type: 'RefreshAgentGrant',
      clientId: agent,
      presentedHash: hash('a'),
      refreshTokenHash: hash('b'),
    } as const;
    grant.given(approved).when(refresh).then([refreshed]);
    grant
      .given(approved)
      .when({ ...refresh, clientId: otherAgent })
      .thenThrows('AgentGrantInvalid', 'unauthorized');
    grant
      .given(approved)
      .when({ ...refresh, presentedHash: hash('c') })
      .thenThrows('AgentGrantInvalid');
    grant
      .given(approved, refreshed)
      .when({ ...refresh, refreshTokenHash: hash('c') })
      .then([{ type: 'AgentGrantRevoked', data: { userId: shopper, reason: 'refresh-reuse' } }]);
    grant.given(approved, revokedByShopper).when(refresh).thenThrows('AgentGrantInvalid');
    grant.given().when(refresh).thenThrows('AgentGrantInvalid');
  });

  it("lets the shopper or the grant's own agent revoke it, once; anyone else sees no such grant", () => {
    grant
      .given(approved)
      .when({ type: 'RevokeAgentGrant', by: { kind: 'shopper', userId: shopper } })
      .then([revokedByShopper]);
    grant
      .given(approved)
      .when({ type: 'RevokeAgentGrant', by: { kind: 'agent', clientId: agent } })
      .then([{ type: 'AgentGrantRevoked', data: { userId: shopper, reason: 'agent' } }]);
    grant
      .given(approved, revokedByShopper)
      .when({ type: 'RevokeAgentGrant', by: { kind: 'shopper', userId: shopper } })
      .then([]);
    grant
      .given(approved)
      .when({ type: 'RevokeAgentGrant', by: { kind: 'shopper', userId: stranger } })
      .thenThrows('AgentGrantNotFound', 'not_found');
    grant
      .given(approved)
      .when({ type: 'RevokeAgentGrant', by: { kind: 'agent', clientId: otherAgent } })
      .thenThrows('AgentGrantNotFound');
    expect(grant.given(approved, revokedByShopper).state.revoked).toBe(true);
  });
});
