import { Kysely } from 'kysely';
import { dataKeyIdFor } from '@shop/contracts';
import { CloseAccount } from '@shop/domain';
import { ReadModelDatabase } from '@shop/read-models';
import { DataKeyVault } from './data-key-vault';

const openOrderStatuses = ['awaiting_approval', 'payment_confirmed', 'in_progress'] as const;

export interface AccountErasure {
  readModel: Kysely<ReadModelDatabase>;
  dataKeys: DataKeyVault;
  /** Runs the command on the user aggregate (refused with ORDER_OPEN when an order is open). */
  closeAccount(userId: string, command: CloseAccount): Promise<unknown>;
}

/**
 * Closes an account, then destroys the data keys of the user and of every chat session the
 * user has: from then on the stream holds nothing readable of them. The closure is recorded
 * first, so a refusal (an open order) never erases data of an account that stays open; a
 * repeated erasure is a no-op on the aggregate and destroys the user's key again.
 */
export async function eraseAccount(
  erasure: AccountErasure,
  userId: string,
  by: CloseAccount['by'],
): Promise<{ sessions: number }> {
  const { readModel, dataKeys } = erasure;
  const openOrder = await readModel
    .selectFrom('orders')
    .select('order_id')
    .where('user_id', '=', userId)
    .where('status', 'in', [...openOrderStatuses])
    .executeTakeFirst();
  // Read before closing: the closure's projection deletes the rows that name the sessions.
  const sessions = await readModel
    .selectFrom('chat_sessions')
    .select('session_id')
    .where('user_id', '=', userId)
    .execute();
  await erasure.closeAccount(userId, { type: 'CloseAccount', by, hasOpenOrder: openOrder !== undefined });
  for (const { session_id } of sessions) await dataKeys.destroy(dataKeyIdFor('session', session_id));
  await dataKeys.destroy(dataKeyIdFor('user', userId));
  return { sessions: sessions.length };
}
