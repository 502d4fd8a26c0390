import { Kysely } from 'kysely';

/** A price is any whole number of cents the cart accepts, well above integer's 2^31-1. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('cart_items')
    .alterColumn('price', (c) => c.setDataType('bigint'))
    .execute();
}
