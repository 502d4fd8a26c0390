import { Kysely } from 'kysely';
import { ReadModelDatabase } from '../read-model-database';
import { ChatMessageView, ChatSessionView, viewOfMessageRow, viewOfSessionRow } from './session-view';

/** A page of a user's sessions, most recently active first, and how many the user has. */
export async function sessionPage(
  db: Kysely<ReadModelDatabase>,
  userId: string,
  limit: number,
  offset: number,
): Promise<{ sessions: ChatSessionView[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('chat_sessions')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('updated_at', 'desc')
      .orderBy('session_id')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('chat_sessions')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow(),
  ]);
  return { sessions: rows.map(viewOfSessionRow), total: Number(count.total) };
}

/** Whoever owns it: telling a missing session from another user's is the caller's business. */
export async function sessionById(
  db: Kysely<ReadModelDatabase>,
  sessionId: string,
): Promise<ChatSessionView | undefined> {
  const row = await db
    .selectFrom('chat_sessions')
    .selectAll()
    .where('session_id', '=', sessionId)
    .executeTakeFirst();
  return row && viewOfSessionRow(row);
}

/** A session's messages in the order they were appended. */
export async function sessionMessages(
  db: Kysely<ReadModelDatabase>,
  sessionId: string,
): Promise<ChatMessageView[]> {
  const rows = await db
    .selectFrom('chat_messages')
    .selectAll()
    .where('session_id', '=', sessionId)
    .orderBy('position')
    .execute();
  return rows.map(viewOfMessageRow);
}
