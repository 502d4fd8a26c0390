import { randomUUID } from 'node:crypto';
import { Controller, Delete, Get, HttpCode, Inject, Patch, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { dataKeyIdFor, RecordedEvent } from '@shop/contracts';
import { DomainError } from '@shop/domain';
import { EventStore } from '@shop/eventstore';
import { ApiError, ApiRoute, ValidBody, ValidParams, ValidQuery } from '@shop/http';
import type { DataKeyVault } from '@shop/wallets';
import { CurrentIdentity } from '../auth/current-identity.decorator';
import type { SessionIdentity } from '../auth/session-identity';
import { gatedErrors, validationError } from '../http/common-errors';
import { DATA_KEYS, EVENT_STORE } from '../infrastructure/tokens';
import {
  ChatMessageResponse,
  ChatSessionResponse,
  chatSessionSchema,
  sessionIdParams,
  sessionListSchema,
  sessionWithMessagesSchema,
  titleSchema,
} from './chat-session.schema';
import { RunSessionCommand } from './run-session-command';
import { GetSessionQuery, ListSessionsQuery } from './session-queries';

const createBody = z.object({ title: titleSchema.optional() });
const renameBody = z.object({ title: titleSchema });
const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});

const sessionErrors: ApiError[] = [
  { status: 400, code: 'VALIDATION_ERROR', description: 'id not a UUID, or title missing or too long' },
  { status: 403, code: 'SessionOwnershipError', description: 'session of another user' },
  { status: 404, code: 'SessionNotFound', description: 'no such session' },
  ...gatedErrors,
];

const atOf = (events: RecordedEvent[]) => events.at(-1)?.occurredAt;

@Controller('api/sessions')
export class SessionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DATA_KEYS) private readonly dataKeys: DataKeyVault,
  ) {}

  @Post()
  @ApiRoute({
    summary: 'Create a chat session',
    tags: ['sessions'],
    access: 'gated',
    body: createBody,
    responses: { 201: { description: 'Created', schema: chatSessionSchema } },
    errors: [validationError, ...gatedErrors],
  })
  async create(
    @CurrentIdentity() identity: SessionIdentity,
    @ValidBody() body: z.infer<typeof createBody>,
  ): Promise<ChatSessionResponse> {
    const sessionId = randomUUID();
    const outcome = await this.commands.execute(
      new RunSessionCommand(sessionId, {
        type: 'CreateSession',
        userId: identity.userId,
        title: body.title ?? null,
      }),
    );
    const at = atOf(outcome.events)!;
    return {
      id: sessionId,
      userId: identity.userId,
      ...(body.title ? { title: body.title } : {}),
      createdAt: at,
      updatedAt: at,
    };
  }

  @Get()
  @ApiRoute({
    summary: "The user's chat sessions, most recently updated first",
    tags: ['sessions'],
    access: 'gated',
    query: listQuery,
    responses: { 200: { description: 'A page of sessions', schema: sessionListSchema } },
    errors: [validationError, ...gatedErrors],
  })
  list(@CurrentIdentity() identity: SessionIdentity, @ValidQuery() query: z.infer<typeof listQuery>) {
    return this.queries.execute(new ListSessionsQuery(identity.userId, query.limit, query.offset));
  }

  @Get(':id')
  @ApiRoute({
    summary: 'One chat session with its messages in order',
    tags: ['sessions'],
    access: 'gated',
    params: sessionIdParams,
    responses: { 200: { description: 'The session', schema: sessionWithMessagesSchema } },
    errors: sessionErrors,
  })
  get(
    @CurrentIdentity() identity: SessionIdentity,
    @ValidParams() params: z.infer<typeof sessionIdParams>,
  ): Promise<ChatSessionResponse & { messages: ChatMessageResponse[] }> {
    return this.queries.execute(new GetSessionQuery(identity.userId, params.id));
  }

  @Patch(':id')
  @ApiRoute({
    summary: 'Rename a chat session',
    tags: ['sessions'],
    access: 'gated',
    params: sessionIdParams,
    body: renameBody,
    responses: { 200: { description: 'The updated session', schema: chatSessionSchema } },
    errors: sessionErrors,
  })
  async rename(
    @CurrentIdentity() identity: SessionIdentity,
    @ValidParams() params: z.infer<typeof sessionIdParams>,
    @ValidBody() body: z.infer<typeof renameBody>,
  ): Promise<ChatSessionResponse> {
    const outcome = await this.commands.execute(
      new RunSessionCommand(params.id, {
        type: 'RenameSession',
        userId: identity.userId,
        title: body.title,
        generated: false,
      }),
    );
    const found = await this.queries
      .execute(new GetSessionQuery(identity.userId, params.id))
      .catch((error: unknown) => {
        if (error instanceof DomainError && error.code === 'SessionNotFound') return null;
        throw error;
      });
    if (found) {
      const { messages: _messages, ...session } = found;
      // The event is the truth even if the read model has not caught up within the wait.
      return { ...session, title: body.title, updatedAt: atOf(outcome.events) ?? session.updatedAt };
    }
    // The rename is stored but the read model has no row yet (the projector lags behind a new
    // session): answer from the session's own events rather than a 404 for a write that happened.
    const { events } = await this.store.load('session', params.id);
    return {
      id: params.id,
      userId: identity.userId,
      title: body.title,
      createdAt: events[0]?.occurredAt ?? atOf(outcome.events)!,
      updatedAt: atOf(outcome.events) ?? atOf(events)!,
    };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiRoute({
    summary: 'Delete a chat session and its messages',
    tags: ['sessions'],
    access: 'gated',
    params: sessionIdParams,
    responses: { 204: { description: 'Deleted' } },
    errors: sessionErrors,
  })
  async remove(
    @CurrentIdentity() identity: SessionIdentity,
    @ValidParams() params: z.infer<typeof sessionIdParams>,
  ): Promise<void> {
    await this.commands.execute(
      new RunSessionCommand(params.id, { type: 'DeleteSession', userId: identity.userId }),
    );
    // Only after the deletion is recorded: the session's words are then unreadable in the stream.
    // If this fails or the process dies first, the session-key-erasure reaction destroys it.
    await this.dataKeys.destroy(dataKeyIdFor('session', params.id));
  }
}
