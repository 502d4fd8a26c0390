import { AgentClientEvent } from '@shop/contracts';
import { Decider } from '../decider';
import { DomainError } from '../domain-error';

export interface RegisterAgentClient {
  type: 'RegisterAgentClient';
  clientName: string;
  redirectUris: string[];
}

export type AgentClientCommand = RegisterAgentClient;

export interface AgentClientState {
  exists: boolean;
  clientName: string | null;
  redirectUris: string[];
}

export const initialAgentClientState = (): AgentClientState => ({
  exists: false,
  clientName: null,
  redirectUris: [],
});

/**
 * An outside agent as dynamic client registration recorded it, on `agent-client.<clientId>`. A
 * client id is the server's own random id, so a second registration under it is a bug, not a retry.
 */
export const agentClientDecider: Decider<AgentClientCommand, AgentClientEvent, AgentClientState> = {
  initialState: initialAgentClientState,

  decide(command, state) {
    if (state.exists)
      throw new DomainError('conflict', 'CONFLICT', 'This agent client is already registered');
    return [
      {
        type: 'AgentClientRegistered',
        data: { clientName: command.clientName, redirectUris: command.redirectUris },
      },
    ];
  },

  evolve(state, event) {
    return { exists: true, clientName: event.data.clientName, redirectUris: event.data.redirectUris };
  },
};
