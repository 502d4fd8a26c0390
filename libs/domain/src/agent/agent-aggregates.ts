import { defineAggregate } from '../aggregate';
import { agentClientDecider } from './agent-client-decider';
import { agentGrantDecider } from './agent-grant-decider';

export const agentClientAggregate = defineAggregate('agent-client', agentClientDecider, {
  snapshotVersion: 1,
});
export const agentGrantAggregate = defineAggregate('agent-grant', agentGrantDecider, { snapshotVersion: 1 });
