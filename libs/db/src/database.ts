import { ColumnType, Generated, JSONColumnType } from 'kysely';
import type { OrderStatus } from '@shop/contracts';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface UsersTable {
  user_id: string;
  provider_subject: string;
  email: string | null;
  display_name: string | null;
  onboarding_step: number;
  shipping_address: JSONColumnType<ShippingAddressRow | null>;
  sizes: JSONColumnType<SizesRow | null>;
  wallet_status: 'none' | 'pending' | 'active' | 'failed';
  wallet_error: string | null;
  sui_address: string | null;
  evm_address: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: number;
}

export interface ShippingAddressRow {
  firstName: string;
  lastName: string;
  street: string;
  apt: string | null;
  country: string;
  city: string;
  state: string | null;
  zip: string;
}

export interface SizesRow {
  topsSize: string;
  bottomsSize: string;
  footwearSize: string;
}

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

export interface ChatSessionsTable {
  session_id: string;
  user_id: string;
  title: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: number;
}

export interface ChatMessagesTable {
  message_id: string;
  session_id: string;
  role: 'user' | 'assistant';
  parts: JSONColumnType<Record<string, unknown>[]>;
  created_at: Timestamp;
  /** Stream position (sequence * 1000 + index in commit): the order messages were appended. */
  position: number;
}

export interface OrderItemRow {
  productId: string;
  productName: string;
  price: number;
  image: string;
  size: string;
  color: string;
  productUrl: string;
  retailer: string;
}

export interface OrdersTable {
  order_id: string;
  user_id: string;
  provider_order_id: string;
  type: 'checkout' | 'deposit';
  phase: string;
  status: OrderStatus;
  cart_item_id: string | null;
  item: JSONColumnType<OrderItemRow | null>;
  payment: JSONColumnType<{ status: string; currency: string } | null>;
  quote: JSONColumnType<{ totalPrice: { amount: string; currency: string } } | null>;
  wallet_address: string | null;
  tx_hash: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: number;
}

/** The project's own memory store: facts the assistant may recall about a user. */
export interface UserMemoriesTable {
  memory_id: string;
  user_id: string;
  namespace: string;
  content: string;
  source: 'onboarding' | 'chat';
  created_at: Timestamp;
}

export interface ProjectionCheckpointsTable {
  projection: string;
  position: number;
  updated_at: Generated<Date>;
}

export interface ParkedSubjectsTable {
  projection: string;
  subject: string;
  sequence: number;
  error: string;
  attempts: number;
  parked_at: Generated<Date>;
}

export interface ParkedEventsTable {
  projection: string;
  subject: string;
  sequence: number;
}

/** Projection bookkeeping, present in every schema that projections write into. */
export interface BookkeepingDatabase {
  projection_checkpoints: ProjectionCheckpointsTable;
  parked_subjects: ParkedSubjectsTable;
  parked_events: ParkedEventsTable;
}

/** The gateway's read-model schema: every table here but the bookkeeping ones is a projection. */
export interface ReadModelDatabase extends BookkeepingDatabase {
  users: UsersTable;
  user_memories: UserMemoriesTable;
  cart_items: CartItemsTable;
  chat_sessions: ChatSessionsTable;
  chat_messages: ChatMessagesTable;
  orders: OrdersTable;
}

/** Tables that are bookkeeping, not projections: never compared between live and rebuilt. */
export const bookkeepingTables = ['projection_checkpoints', 'parked_subjects', 'parked_events'] as const;
