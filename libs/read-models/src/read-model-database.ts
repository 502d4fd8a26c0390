import { Kysely } from 'kysely';
import { BookkeepingDatabase } from '@shop/db';
import { AnyKysely, Projection } from '@shop/projections';
import { AgentGrantsTable } from './agent/agent-grants-table';
import { CartItemsTable } from './cart/cart-items-table';
import { UserMemoriesTable } from './memory/user-memories-table';
import { AgentClientsTable, OrdersTable } from './order/orders-table';
import { ChatMessagesTable, ChatSessionsTable } from './session/chat-sessions-table';
import { UsersTable } from './user/users-table';

/** The gateway's read-model schema: every table here but the bookkeeping ones is a projection. */
export interface ReadModelDatabase extends BookkeepingDatabase {
  users: UsersTable;
  user_memories: UserMemoriesTable;
  cart_items: CartItemsTable;
  chat_sessions: ChatSessionsTable;
  chat_messages: ChatMessagesTable;
  orders: OrdersTable;
  agent_clients: AgentClientsTable;
  agent_grants: AgentGrantsTable;
}

/** A projection into the gateway's read model. */
export type ReadModelProjection = Projection<ReadModelDatabase>;

export function readModel(db: AnyKysely, schema: string): Kysely<ReadModelDatabase> {
  return db.withSchema(schema);
}
