import { Inject } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { sessionNotFound, sessionOwnership } from '@shop/domain';
import { sessionById, sessionMessages, sessionPage } from '@shop/read-models';
import type { ReadModelDatabase } from '@shop/read-models';
import { READ_DB } from '../infrastructure/tokens';
import { ChatMessageResponse, ChatSessionResponse } from './chat-session.schema';

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

  execute({ userId, limit, offset }: ListSessionsQuery) {
    return sessionPage(this.db, userId, limit, offset);
  }
}

@QueryHandler(GetSessionQuery)
export class GetSessionHandler implements IQueryHandler<GetSessionQuery> {
  constructor(@Inject(READ_DB) private readonly db: Kysely<ReadModelDatabase>) {}

  async execute({ userId, sessionId }: GetSessionQuery) {
    const session = await sessionById(this.db, sessionId);
    if (!session) throw sessionNotFound();
    if (session.userId !== userId) throw sessionOwnership();
    return { ...session, messages: await sessionMessages(this.db, sessionId) };
  }
}
