import { Selectable } from 'kysely';
import { ChatMessagesTable, ChatSessionsTable } from './chat-sessions-table';

/** A chat session as the gateway answers it (the `ChatSession` schema). */
export interface ChatSessionView {
  id: string;
  userId: string;
  /** Absent for an untitled session. */
  title?: string;
  createdAt: string;
  updatedAt: string;
}

/** A message as the gateway answers it (the `ChatMessage` schema). */
export interface ChatMessageView {
  id: string;
  role: 'user' | 'assistant';
  parts: Record<string, unknown>[];
  createdAt: string;
}

export function viewOfSessionRow(row: Selectable<ChatSessionsTable>): ChatSessionView {
  return {
    id: row.session_id,
    userId: row.user_id,
    ...(row.title !== null ? { title: row.title } : {}),
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

export function viewOfMessageRow(row: Selectable<ChatMessagesTable>): ChatMessageView {
  return {
    id: row.message_id,
    role: row.role,
    parts: row.parts,
    createdAt: new Date(row.created_at).toISOString(),
  };
}
