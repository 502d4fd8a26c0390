import { Migration } from 'kysely';
import { Timestamp } from '../timestamp';
import * as userMemories from './migrations/0003-user-memories';

/** The project's own memory store: facts the assistant may recall about a user. */
export interface UserMemoriesTable {
  memory_id: string;
  user_id: string;
  namespace: string;
  content: string;
  source: 'onboarding' | 'chat';
  created_at: Timestamp;
}

/** Named as recorded in every existing schema's migration table. */
export const userMemoriesMigrations: Record<string, Migration> = {
  '0003-user-memories': userMemories,
};
