import { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('funnel_users')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('registered_at', 'timestamptz')
    .addColumn('display_name_at', 'timestamptz')
    .addColumn('address_at', 'timestamptz')
    .addColumn('sizes_at', 'timestamptz')
    .addColumn('first_item_at', 'timestamptz')
    .addColumn('first_order_at', 'timestamptz')
    .addColumn('first_delivery_at', 'timestamptz')
    .execute();
  await db.schema
    .createTable('funnel_orders')
    .addColumn('order_id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('revenue_orders')
    .addColumn('order_id', 'text', (c) => c.primaryKey())
    .addColumn('retailer', 'text', (c) => c.notNull())
    .addColumn('price_cents', 'bigint', (c) => c.notNull())
    .addColumn('confirmed_on', 'date')
    .execute();
  await db.schema
    .createTable('revenue_daily')
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('retailer', 'text', (c) => c.notNull())
    .addColumn('orders', 'integer', (c) => c.notNull())
    .addColumn('revenue_cents', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('revenue_daily_pk', ['day', 'retailer'])
    .execute();
  await db.schema
    .createTable('deposits_daily')
    .addColumn('day', 'date', (c) => c.primaryKey())
    .addColumn('deposits', 'integer', (c) => c.notNull())
    .addColumn('usdmx_amount', 'numeric', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('product_adds')
    .addColumn('product_id', 'text', (c) => c.primaryKey())
    .addColumn('product_name', 'text', (c) => c.notNull())
    .addColumn('retailer', 'text', (c) => c.notNull())
    .addColumn('adds', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('sessions_daily')
    .addColumn('day', 'date', (c) => c.primaryKey())
    .addColumn('sessions', 'integer', (c) => c.notNull())
    .execute();
}
