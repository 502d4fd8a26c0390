import { Kysely } from 'kysely';
import { ReadModelDatabase } from './read-model-database';

const openOrderStatuses = ['awaiting_approval', 'payment_confirmed', 'in_progress'] as const;

/**
 * What closing an account is decided on: whether one of the user's orders is open, and which
 * chat sessions the user has. Only as true as the read models are current: the caller waits
 * until they have applied the stream's head first.
 */
export async function accountErasureFacts(
  readModel: Kysely<ReadModelDatabase>,
  userId: string,
): Promise<{ openOrder: boolean; sessionIds: string[] }> {
  const [openOrder, sessions] = await Promise.all([
    readModel
      .selectFrom('orders')
      .select('order_id')
      .where('user_id', '=', userId)
      .where('status', 'in', [...openOrderStatuses])
      .executeTakeFirst(),
    readModel.selectFrom('chat_sessions').select('session_id').where('user_id', '=', userId).execute(),
  ]);
  return { openOrder: openOrder !== undefined, sessionIds: sessions.map((s) => s.session_id) };
}
