import { Kysely, Selectable } from 'kysely';
import { ReadModelDatabase } from '../read-model-database';
import { UserMemoriesTable } from './user-memories-table';

/** A user's newest memories, at most `limit` of them. */
export function newestMemories(
  db: Kysely<ReadModelDatabase>,
  userId: string,
  limit: number,
): Promise<Selectable<UserMemoriesTable>[]> {
  return db
    .selectFrom('user_memories')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('memory_id')
    .limit(limit)
    .execute();
}
