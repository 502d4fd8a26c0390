import { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('chat_sessions')
    .addColumn('session_id', 'uuid', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('chat_sessions_user')
    .on('chat_sessions')
    .columns(['user_id', 'updated_at'])
    .execute();
  await db.schema
    .createTable('chat_messages')
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'uuid', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('parts', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('position', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('chat_messages_pk', ['session_id', 'message_id'])
    .execute();
  await db.schema
    .createIndex('chat_messages_order')
    .on('chat_messages')
    .columns(['session_id', 'position'])
    .execute();
}
