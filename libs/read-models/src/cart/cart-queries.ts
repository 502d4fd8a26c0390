import { Kysely } from 'kysely';
import { ReadModelDatabase } from '../read-model-database';
import { CartItemView, viewOfRow } from './cart-item-row';

/** The items in a user's cart, oldest first; removed and ordered ones are kept as rows but not listed. */
export async function activeCartItems(
  db: Kysely<ReadModelDatabase>,
  userId: string,
): Promise<CartItemView[]> {
  const rows = await db
    .selectFrom('cart_items')
    .selectAll()
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('item_id')
    .execute();
  return rows.map(viewOfRow);
}
