import { Inject } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { sessionNotFound, sessionOwnership } from '@shop/domain';
import type { ReadModelDatabase } from '@shop/read-models';
import { READ_DB } from '../infrastructure/tokens';
import {
  ChatMessageResponse,
  ChatSessionResponse,
  toChatMessage,
  toChatSession,
} from './chat-session.schema';

export class ListSessionsQuery extends Query<{ sessions: ChatSessionResponse[]; total: number }> {
  constructor(
    readonly userId: string,
    readonly limit: number,
    readonly offset: number,
  ) {
    super();
  }
}

export class GetSessionQuery extends Query<ChatSessionResponse & { messages: ChatMessageResponse[] }> {
  constructor(
    readonly userId: string,
    readonly sessionId: string,
  ) {
    super();
  }
}

@QueryHandler(ListSessionsQuery)
export class ListSessionsHandler implements IQueryHandler<ListSessionsQuery> {
  constructor(@Inject(READ_DB) private readonly db: Kysely<ReadModelDatabase>) {}

  async execute({ userId, limit, offset }: ListSessionsQuery) {
    const [rows, count] = await Promise.all([
      this.db
        .selectFrom('chat_sessions')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('updated_at', 'desc')
        .orderBy('session_id')
        .limit(limit)
        .offset(offset)
        .execute(),
      this.db
        .selectFrom('chat_sessions')
        .select((eb) => eb.fn.countAll<number>().as('total'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow(),
    ]);
    return { sessions: rows.map(toChatSession), total: Number(count.total) };
  }
}

@QueryHandler(GetSessionQuery)
export class GetSessionHandler implements IQueryHandler<GetSessionQuery> {
  constructor(@Inject(READ_DB) private readonly db: Kysely<ReadModelDatabase>) {}

  async execute({ userId, sessionId }: GetSessionQuery) {
    const row = await this.db
      .selectFrom('chat_sessions')
      .selectAll()
      .where('session_id', '=', sessionId)
      .executeTakeFirst();
    if (!row) throw sessionNotFound();
    if (row.user_id !== userId) throw sessionOwnership();
    const messages = await this.db
      .selectFrom('chat_messages')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('position')
      .execute();
    return { ...toChatSession(row), messages: messages.map(toChatMessage) };
  }
}
