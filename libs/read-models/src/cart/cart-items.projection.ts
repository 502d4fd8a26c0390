import { Selectable } from 'kysely';
import { CartEvent, RecordedEvent } from '@shop/contracts';
import { applyRowFold, RowFoldSpec } from '@shop/projections';
import { UserChangeListener } from '../cache-invalidator';
import { ReadModelProjection } from '../read-model-database';
import { CartItemsTable } from './cart-items-table';

type CartItemRow = Selectable<CartItemsTable>;

function foldItem(row: CartItemRow | undefined, recorded: RecordedEvent): CartItemRow | undefined {
  const event = recorded as RecordedEvent<CartEvent>;
  if (event.type === 'ItemAdded') {
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
      on_chain_object_id: row?.on_chain_object_id ?? null,
      created_at: new Date(event.occurredAt),
      deleted_at: null,
      version: event.sequence,
    };
  }
  // Checkout reservations and the on-chain cart object are the decider's business.
  if (event.type === 'ItemCheckoutStarted' || event.type === 'ItemCheckoutReleased') return row;
  if (event.type === 'CartInitializedOnChain') return row;
  if (!row) throw new Error(`${event.type} for unknown cart item ${event.data.itemId}`);
  if (event.type === 'ItemRemovedFromChain') return row;
  if (event.type === 'ItemLinkedOnChain') {
    return { ...row, on_chain_object_id: event.data.objectId, version: event.sequence };
  }
  if (event.type === 'ItemRestored') return { ...row, deleted_at: null, version: event.sequence };
  // Soft delete: the row stays, listings show active items only.
  return { ...row, deleted_at: new Date(event.occurredAt), version: event.sequence };
}

const spec: RowFoldSpec<CartItemRow> = {
  table: 'cart_items',
  key: 'item_id',
  keyOf: (event) =>
    event.aggregate === 'cart' ? ((event.data as { itemId?: string }).itemId ?? null) : null,
  fold: foldItem,
};

export function cartItemsProjection(listener?: UserChangeListener): ReadModelProjection {
  return {
    name: 'cart_items',
    aggregates: ['cart'],
    tables: ['cart_items'],
    apply: (db, events) => applyRowFold(db, spec, events),
    async afterCommit(events) {
      const users = new Set(events.filter((e) => e.aggregate === 'cart').map((e) => e.aggregateId));
      if (users.size > 0 && listener) await listener.usersChanged(users);
    },
  };
}
