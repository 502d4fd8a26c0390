import { CartEvent, RecordedEvent } from '@shop/contracts';
import { applyRowFold, RowFoldSpec, rowFoldBulk } from '@shop/projections';
import { UserChangeListener } from '../cache-invalidator';
import { ReadModelProjection } from '../read-model-database';
import { CartItemRow, rowOfItemAdded } from './cart-item-row';

function foldItem(row: CartItemRow | undefined, recorded: RecordedEvent): CartItemRow | undefined {
  const event = recorded as RecordedEvent<CartEvent>;
  if (event.type === 'ItemAdded') return rowOfItemAdded(event, row?.on_chain_object_id ?? null);
  // Checkout reservations and the on-chain cart object are the decider's business.
  if (
    event.type === 'ItemCheckoutStarted' ||
    event.type === 'ItemCheckoutReleased' ||
    event.type === 'ItemCheckoutInDoubt'
  )
    return row;
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
    // An item row is folded from its cart's events only, and a cart is one aggregate.
    partitioned: true,
    apply: (db, events, mode) => applyRowFold(db, spec, events, mode),
    bulk: () => rowFoldBulk(spec),
    async afterCommit(events) {
      const users = new Set(events.filter((e) => e.aggregate === 'cart').map((e) => e.aggregateId));
      if (users.size > 0 && listener) await listener.usersChanged(users);
    },
  };
}
