import { Migration } from 'kysely';
import { Timestamp } from '../timestamp';
import * as agentGrants from './migrations/0009-agent-grants';

/** A shopper's connected agents: one row per grant that stands (a revoked grant's row is gone). */
export interface AgentGrantsTable {
  grant_id: string;
  user_id: string;
  client_id: string;
  client_name: string;
  /** The granted scopes, space-separated as OAuth writes them. */
  scopes: string;
  connected_at: Timestamp;
  /** When the agent last got tokens (its first exchange or a refresh). */
  last_used_at: Timestamp;
  version: number;
}

export const agentGrantsMigrations: Record<string, Migration> = {
  '0009-agent-grants': agentGrants,
};
