import { Kysely } from 'kysely';
import { ReadModelDatabase } from '../read-model-database';

export interface ConnectedAgentView {
  grantId: string;
  clientId: string;
  clientName: string;
  scopes: string[];
  connectedAt: string;
  lastUsedAt: string;
}

/** The agents a shopper has connected and not revoked, most recently connected first. */
export async function connectedAgents(
  db: Kysely<ReadModelDatabase>,
  userId: string,
): Promise<ConnectedAgentView[]> {
  const rows = await db
    .selectFrom('agent_grants')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('connected_at', 'desc')
    .orderBy('grant_id')
    .execute();
  return rows.map((row) => ({
    grantId: row.grant_id,
    clientId: row.client_id,
    clientName: row.client_name,
    scopes: row.scopes.split(' '),
    connectedAt: row.connected_at.toISOString(),
    lastUsedAt: row.last_used_at.toISOString(),
  }));
}
