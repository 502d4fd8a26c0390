import { Kysely, Migration } from 'kysely';
import { bookkeepingMigrations, migrateSchema } from '@shop/db';
import { agentGrantsMigrations } from './agent/agent-grants-table';
import { cartItemsMigrations } from './cart/cart-items-table';
import { userMemoriesMigrations } from './memory/user-memories-table';
import { ordersMigrations } from './order/orders-table';
import { chatSessionsMigrations } from './session/chat-sessions-table';
import { usersMigrations } from './user/users-table';

/**
 * The gateway's read model: each read model's migrations, kept in its folder. The migrator
 * runs them ordered by name across all folders, so a new migration takes the next number.
 */
export const readModelMigrations: Record<string, Migration> = {
  ...bookkeepingMigrations,
  ...usersMigrations,
  ...userMemoriesMigrations,
  ...cartItemsMigrations,
  ...chatSessionsMigrations,
  ...ordersMigrations,
  ...agentGrantsMigrations,
};

export function migrateReadModel(db: Kysely<unknown>, schema: string): Promise<string[]> {
  return migrateSchema(db, schema, readModelMigrations);
}
