import { Selectable } from 'kysely';
import { CartEvent, CartItemSnapshot, RecordedEvent } from '@shop/contracts';
import { CartItemsTable } from './cart-items-table';

/*
 * A cart item's fields, mapped three ways side by side: from the event into the row, from the
 * row into the answer, and from the event straight into the answer (an add answers before the
 * projector has written the row). A new field is added to each of the three here.
 */

export type CartItemRow = Selectable<CartItemsTable>;
export type RecordedItemAdded = RecordedEvent<Extract<CartEvent, { type: 'ItemAdded' }>>;

/** A cart item as the gateway answers it (the `CartItem` schema): the snapshot, its owner, when added. */
export interface CartItemView extends CartItemSnapshot {
  id: string;
  userId: string;
  createdAt: string;
}

/** The cart's aggregate id is its user's id. */
export function rowOfItemAdded(event: RecordedItemAdded, onChainObjectId: string | null): CartItemRow {
  const d = event.data;
  return {
    item_id: d.itemId,
    user_id: event.aggregateId,
    product_id: d.productId,
    product_name: d.productName,
    price: d.price,
    image: d.image,
    size: d.size,
    color: d.color,
    product_url: d.productUrl,
    retailer: d.retailer,
    on_chain_object_id: onChainObjectId,
    created_at: new Date(event.occurredAt),
    deleted_at: null,
    version: event.sequence,
  };
}

export function viewOfRow(row: CartItemRow): CartItemView {
  return {
    id: row.item_id,
    userId: row.user_id,
    productId: row.product_id,
    productName: row.product_name,
    price: row.price,
    image: row.image,
    size: row.size,
    color: row.color,
    productUrl: row.product_url,
    retailer: row.retailer,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export function viewOfItemAdded(event: RecordedItemAdded): CartItemView {
  const d = event.data;
  return {
    id: d.itemId,
    userId: event.aggregateId,
    productId: d.productId,
    productName: d.productName,
    price: d.price,
    image: d.image,
    size: d.size,
    color: d.color,
    productUrl: d.productUrl,
    retailer: d.retailer,
    createdAt: new Date(event.occurredAt).toISOString(),
  };
}
