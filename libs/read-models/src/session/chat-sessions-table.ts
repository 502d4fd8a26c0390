import { JSONColumnType, Migration } from 'kysely';
import { Timestamp } from '../timestamp';
import * as chatSessions from './migrations/0005-chat-sessions';

export interface ChatSessionsTable {
  session_id: string;
  user_id: string;
  title: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: number;
}

export interface ChatMessagesTable {
  message_id: string;
  session_id: string;
  role: 'user' | 'assistant';
  parts: JSONColumnType<Record<string, unknown>[]>;
  created_at: Timestamp;
  /** Stream position (sequence * 1000 + index in commit): the order messages were appended. */
  position: number;
}

/** Named as recorded in every existing schema's migration table. */
export const chatSessionsMigrations: Record<string, Migration> = {
  '0005-chat-sessions': chatSessions,
};
