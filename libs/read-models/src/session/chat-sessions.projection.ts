import { Insertable, Selectable } from 'kysely';
import { RecordedEvent, SessionEvent } from '@shop/contracts';
import { applyRowFold, RowFoldSpec } from '@shop/projections';
import { applyAroundClosures } from '../account-closure';
import { ReadModelProjection } from '../read-model-database';
import { ChatMessagesTable, ChatSessionsTable } from './chat-sessions-table';

type SessionRow = Selectable<ChatSessionsTable>;

function foldSession(row: SessionRow | undefined, recorded: RecordedEvent): SessionRow | null | undefined {
  const event = recorded as RecordedEvent<SessionEvent>;
  const at = new Date(event.occurredAt);
  if (event.type === 'SessionCreated') {
    return {
      session_id: event.aggregateId,
      user_id: event.data.userId,
      title: event.data.title,
      created_at: at,
      updated_at: at,
      version: event.sequence,
    };
  }
  if (!row) throw new Error(`${event.type} for unknown session ${event.aggregateId}`);
  switch (event.type) {
    case 'SessionRenamed':
      return { ...row, title: event.data.title, updated_at: at, version: event.sequence };
    case 'ChatMessageAppended':
      return { ...row, updated_at: at, version: event.sequence };
    case 'SessionDeleted':
      return null;
  }
}

const sessions: RowFoldSpec<SessionRow> = {
  table: 'chat_sessions',
  key: 'session_id',
  keyOf: (event) => (event.aggregate === 'session' ? event.aggregateId : null),
  fold: foldSession,
};

/** Messages are appended in stream order; a session's deletion takes its messages with it. */
async function applyMessages(
  db: Parameters<ReadModelProjection['apply']>[0],
  events: readonly RecordedEvent[],
) {
  const inserts: Insertable<ChatMessagesTable>[] = [];
  const deleted = new Set<string>();
  for (const recorded of events) {
    if (recorded.aggregate !== 'session') continue;
    const event = recorded as RecordedEvent<SessionEvent>;
    if (event.type === 'ChatMessageAppended') {
      inserts.push({
        message_id: event.data.messageId,
        session_id: event.aggregateId,
        role: event.data.role,
        parts: JSON.stringify(event.data.parts),
        created_at: event.occurredAt,
        position: event.sequence * 1000 + event.index,
      });
    } else if (event.type === 'SessionDeleted') deleted.add(event.aggregateId);
  }
  const kept = inserts.filter((m) => !deleted.has(m.session_id));
  if (kept.length > 0) {
    await db
      .insertInto('chat_messages')
      .values(kept)
      .onConflict((oc) => oc.columns(['session_id', 'message_id']).doNothing())
      .execute();
  }
  if (deleted.size > 0)
    await db
      .deleteFrom('chat_messages')
      .where('session_id', 'in', [...deleted])
      .execute();
}

/** A closed account's sessions go with it, whether or not each was deleted before. */
export const chatSessionsProjection: ReadModelProjection = {
  name: 'chat_sessions',
  aggregates: ['session', 'user'],
  tables: ['chat_sessions', 'chat_messages'],
  apply: (db, events) =>
    applyAroundClosures(
      events,
      async (some) => {
        await applyRowFold(db, sessions, some);
        await applyMessages(db, some);
      },
      async (userId) => {
        const owned = db.selectFrom('chat_sessions').select('session_id').where('user_id', '=', userId);
        await db.deleteFrom('chat_messages').where('session_id', 'in', owned).execute();
        await db.deleteFrom('chat_sessions').where('user_id', '=', userId).execute();
      },
    ),
};
