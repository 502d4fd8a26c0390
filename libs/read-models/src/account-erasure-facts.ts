import { Kysely } from 'kysely';
import { openOrderStatuses } from '@shop/domain';
import { ReadModelPositions } from '@shop/projections';
import { ReadModelDatabase } from './read-model-database';

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

/**
 * The read models an erasure is decided on, for every process that erases (the gateway, the
 * operator's command): a bounded wait until the orders and chat sessions models have applied
 * a stream position, and the facts read from them.
 */
export function erasureReadModels(
  positions: ReadModelPositions,
  readModel: Kysely<ReadModelDatabase>,
  waitMs: number,
) {
  return {
    readModelsReach: (sequence: number) =>
      positions.waitUntilReadable(
        new Map([
          ['order', sequence],
          ['session', sequence],
        ]),
        waitMs,
      ),
    readFacts: (userId: string) => accountErasureFacts(readModel, userId),
  };
}
