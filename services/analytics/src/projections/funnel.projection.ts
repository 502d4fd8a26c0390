import { Kysely, Selectable } from 'kysely';
import { CartEvent, OrderEvent, RecordedEvent, UserEvent } from '@shop/contracts';
import { AnyKysely, applyRowFold, Projection, RowFoldSpec } from '@shop/projections';
import { AnalyticsDatabase, FunnelOrdersTable, FunnelUsersTable } from '../schema/analytics-database';

type FunnelRow = Selectable<FunnelUsersTable>;
type Stage = Exclude<keyof FunnelRow, 'user_id'>;

/** The funnel's stages in order, each reached by the first event of its kind. */
export const funnelStages: readonly { stage: Stage; label: string }[] = [
  { stage: 'registered_at', label: 'registered' },
  { stage: 'display_name_at', label: 'step 1: name' },
  { stage: 'address_at', label: 'step 2: address' },
  { stage: 'sizes_at', label: 'step 3: sizes' },
  { stage: 'first_item_at', label: 'first cart item' },
  { stage: 'first_order_at', label: 'first order' },
  { stage: 'first_delivery_at', label: 'first delivery' },
];

const userStages: Partial<Record<UserEvent['type'], Stage>> = {
  UserRegistered: 'registered_at',
  DisplayNameSet: 'display_name_at',
  ShippingAddressSaved: 'address_at',
  SizesSaved: 'sizes_at',
};

type Owners = ReadonlyMap<string, string>;

type OrderCreated = RecordedEvent<Extract<OrderEvent, { type: 'OrderCreated' }>>;

const isCheckoutOrder = (event: RecordedEvent): event is OrderCreated =>
  event.type === 'OrderCreated' && (event as OrderCreated).data.type === 'checkout';

/** The user and stage an event moves, if any; deliveries find their user through `owners`. */
function stageOf(event: RecordedEvent, owners: Owners): { userId: string; stage: Stage } | null {
  if (event.aggregate === 'user') {
    const stage = userStages[event.type as UserEvent['type']];
    return stage ? { userId: event.aggregateId, stage } : null;
  }
  if (event.aggregate === 'cart' && (event as RecordedEvent<CartEvent>).type === 'ItemAdded') {
    return { userId: event.aggregateId, stage: 'first_item_at' };
  }
  if (isCheckoutOrder(event)) return { userId: event.data.userId, stage: 'first_order_at' };
  if (event.type === 'OrderDelivered') {
    const userId = owners.get(event.aggregateId);
    return userId ? { userId, stage: 'first_delivery_at' } : null;
  }
  return null;
}

const emptyRow = (userId: string): FunnelRow => ({
  user_id: userId,
  registered_at: null,
  display_name_at: null,
  address_at: null,
  sizes_at: null,
  first_item_at: null,
  first_order_at: null,
  first_delivery_at: null,
});

function funnelSpec(owners: Owners): RowFoldSpec<FunnelRow> {
  return {
    table: 'funnel_users',
    key: 'user_id',
    keyOf: (event) => stageOf(event, owners)?.userId ?? null,
    fold(row, event) {
      const { userId, stage } = stageOf(event, owners)!;
      const current = row ?? emptyRow(userId);
      // Only the first time counts: a later answer to the same step leaves the row as it is.
      if (current[stage] !== null) return row;
      return { ...current, [stage]: new Date(event.occurredAt) };
    },
  };
}

const ownersSpec: RowFoldSpec<Selectable<FunnelOrdersTable>> = {
  table: 'funnel_orders',
  key: 'order_id',
  keyOf: (event) => (isCheckoutOrder(event) ? event.aggregateId : null),
  fold: (row, event) =>
    row ?? (isCheckoutOrder(event) ? { order_id: event.aggregateId, user_id: event.data.userId } : row),
};

/** Owners of the orders delivered in this batch: created in it, or earlier (stored). */
async function ownersOf(db: AnyKysely, events: readonly RecordedEvent[]): Promise<Owners> {
  const owners = new Map<string, string>();
  const wanted = new Set<string>();
  for (const event of events) {
    if (isCheckoutOrder(event)) owners.set(event.aggregateId, event.data.userId);
    else if (event.type === 'OrderDelivered' && !owners.has(event.aggregateId)) wanted.add(event.aggregateId);
  }
  if (wanted.size > 0) {
    const rows = await (db as Kysely<AnalyticsDatabase>)
      .selectFrom('funnel_orders')
      .select(['order_id', 'user_id'])
      .where('order_id', 'in', [...wanted])
      .execute();
    for (const row of rows) owners.set(row.order_id, row.user_id);
  }
  return owners;
}

/**
 * The onboarding funnel per user: registered, the three onboarding steps, first cart item,
 * first checkout order, first delivery, each stamped with the event's time.
 */
export const funnelProjection: Projection<AnalyticsDatabase> = {
  name: 'analytics_funnel',
  aggregates: ['user', 'cart', 'order'],
  tables: ['funnel_users', 'funnel_orders'],
  async apply(db, events) {
    const owners = await ownersOf(db, events);
    await applyRowFold(db, ownersSpec, events);
    await applyRowFold(db, funnelSpec(owners), events);
  },
};
