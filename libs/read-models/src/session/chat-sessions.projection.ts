import { Insertable, Selectable } from 'kysely';
import { RecordedEvent, SessionEvent } from '@shop/contracts';
import {
  applyRowFold,
  BulkTable,
  foldRows,
  RowFoldSpec,
  RowTarget,
  WriteMode,
  writeRows,
} from '@shop/projections';
import { applyAroundClosures, foldAroundClosures } from '../account-closure';
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

/** A message as the projection keeps it; `parts` as the event holds them, JSON once written. */
type MessageRow = Omit<Insertable<ChatMessagesTable>, 'parts'> & { parts: unknown };

/** Messages are appended in stream order; a session's deletion takes its messages with it. */
function messageChanges(events: readonly RecordedEvent[]): { kept: MessageRow[]; deleted: Set<string> } {
  const inserts: MessageRow[] = [];
  const deleted = new Set<string>();
  for (const recorded of events) {
    if (recorded.aggregate !== 'session') continue;
    const event = recorded as RecordedEvent<SessionEvent>;
    if (event.type === 'ChatMessageAppended') {
      inserts.push({
        message_id: event.data.messageId,
        session_id: event.aggregateId,
        role: event.data.role,
        parts: event.data.parts,
        created_at: event.occurredAt,
        position: event.sequence * 1000 + event.index,
      });
    } else if (event.type === 'SessionDeleted') deleted.add(event.aggregateId);
  }
  return { kept: inserts.filter((m) => !deleted.has(m.session_id)), deleted };
}

const messageRows: RowTarget = {
  table: 'chat_messages',
  key: ['session_id', 'message_id'],
  onConflict: 'keep',
};

async function applyMessages(
  db: Parameters<ReadModelProjection['apply']>[0],
  events: readonly RecordedEvent[],
  mode: WriteMode,
) {
  const { kept, deleted } = messageChanges(events);
  await writeRows(db, messageRows, kept, mode);
  if (deleted.size > 0)
    await db
      .deleteFrom('chat_messages')
      .where('session_id', 'in', [...deleted])
      .execute();
}

/** A message's key in memory: the table's primary key (session_id, message_id). */
const messageKey = (m: MessageRow) => `${m.session_id}\u0000${m.message_id}`;

/** A closed account's sessions go with it, whether or not each was deleted before. */
export const chatSessionsProjection: ReadModelProjection = {
  name: 'chat_sessions',
  aggregates: ['session', 'user'],
  tables: ['chat_sessions', 'chat_messages'],
  // Not partitioned: a user's closure deletes the rows of sessions, aggregates of other ids, and
  // split apart a session's later events could land before or after the closure.
  apply: (db, events, mode = 'batch') =>
    applyAroundClosures(
      events,
      async (some) => {
        await applyRowFold(db, sessions, some, mode);
        await applyMessages(db, some, mode);
      },
      async (userId) => {
        const owned = db.selectFrom('chat_sessions').select('session_id').where('user_id', '=', userId);
        await db.deleteFrom('chat_messages').where('session_id', 'in', owned).execute();
        await db.deleteFrom('chat_sessions').where('user_id', '=', userId).execute();
      },
    ),
  bulk() {
    const sessionRows = new BulkTable<SessionRow>('chat_sessions', 'user_id');
    const messages = new BulkTable<MessageRow>('chat_messages', 'session_id');
    return {
      add: (events) =>
        foldAroundClosures(
          events,
          (some) => {
            foldRows(sessions, sessionRows, some);
            const { kept, deleted } = messageChanges(some);
            for (const message of kept) {
              const key = messageKey(message);
              if (!messages.has(key)) messages.set(key, message);
            }
            for (const sessionId of deleted) messages.deleteOwnedBy(sessionId);
          },
          (userId) => {
            for (const sessionId of sessionRows.keysOwnedBy(userId)) messages.deleteOwnedBy(sessionId);
            sessionRows.deleteOwnedBy(userId);
          },
        ),
      tables: () => [sessionRows, messages],
    };
  },
};
