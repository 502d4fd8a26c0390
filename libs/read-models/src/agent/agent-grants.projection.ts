import { Selectable } from 'kysely';
import { AgentGrantEvent, RecordedEvent } from '@shop/contracts';
import { applyRowFold, BulkTable, foldRows, RowFoldSpec } from '@shop/projections';
import { applyAroundClosures, foldAroundClosures } from '../account-closure';
import { ReadModelProjection } from '../read-model-database';
import { AgentGrantsTable } from './agent-grants-table';

type GrantRow = Selectable<AgentGrantsTable>;

function foldGrant(row: GrantRow | undefined, recorded: RecordedEvent): GrantRow | null | undefined {
  const event = recorded as RecordedEvent<AgentGrantEvent>;
  const at = new Date(event.occurredAt);
  switch (event.type) {
    case 'AgentGrantApproved':
      return {
        grant_id: event.aggregateId,
        user_id: event.data.userId,
        client_id: event.data.clientId,
        client_name: event.data.clientName,
        scopes: event.data.scopes.join(' '),
        connected_at: at,
        last_used_at: at,
        version: event.sequence,
      };
    case 'AgentGrantRefreshed':
      return row && { ...row, last_used_at: at, version: event.sequence };
    case 'AgentGrantRevoked':
      return null;
  }
}

const grants: RowFoldSpec<GrantRow> = {
  table: 'agent_grants',
  key: 'grant_id',
  keyOf: (event) => (event.aggregate === 'agent-grant' ? event.aggregateId : null),
  fold: foldGrant,
};

/** The agents each shopper connected; a closed account's go with it. */
export const agentGrantsProjection: ReadModelProjection = {
  name: 'agent_grants',
  aggregates: ['agent-grant', 'user'],
  tables: ['agent_grants'],
  apply: (db, events) =>
    applyAroundClosures(
      events,
      (some) => applyRowFold(db, grants, some),
      async (userId) => {
        await db.deleteFrom('agent_grants').where('user_id', '=', userId).execute();
      },
    ),
  bulk() {
    const rows = new BulkTable<GrantRow>('agent_grants', 'user_id');
    return {
      add: (events) =>
        foldAroundClosures(
          events,
          (some) => foldRows(grants, rows, some),
          (userId) => rows.deleteOwnedBy(userId),
        ),
      tables: () => [rows],
    };
  },
};
