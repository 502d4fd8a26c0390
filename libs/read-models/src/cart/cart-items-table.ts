import { Migration } from 'kysely';
import { Timestamp } from '../timestamp';
import * as cartItems from './migrations/0004-cart-items';
import * as moneyAsBigint from './migrations/0007-money-as-bigint';

export interface CartItemsTable {
  item_id: string;
  user_id: string;
  product_id: string;
  product_name: string;
  price: number;
  image: string;
  size: string;
  color: string;
  product_url: string;
  retailer: string;
  on_chain_object_id: string | null;
  created_at: Timestamp;
  deleted_at: Timestamp | null;
  version: number;
}

/** Named as recorded in every existing schema's migration table. */
export const cartItemsMigrations: Record<string, Migration> = {
  '0004-cart-items': cartItems,
  '0007-money-as-bigint': moneyAsBigint,
};
