import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { Controller, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { JsonToSseTransformStream, UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from 'ai';
import { ApiRoute, ValidBody } from '@shop/http';
import { CurrentIdentity } from '../auth/current-identity.decorator';
import { ReadsReadModel } from '../consistency/reads-read-model.decorator';
import type { SessionIdentity } from '../auth/session-identity';
import { gatedErrors } from '../http/common-errors';
import { ChatAgent } from './chat-agent';
import { chatRequestBody, type ChatRequest } from './chat-request.schema';
import { CHAT_STREAM_DESCRIPTION } from './chat-stream.doc';
import { v6Chunks } from './v6-chunks';

function sseBody(chunks: ReadableStream<UIMessageChunk>): Readable {
  const bytes = chunks
    .pipeThrough(v6Chunks())
    .pipeThrough(new JsonToSseTransformStream())
    .pipeThrough(new TextEncoderStream());
  return Readable.fromWeb(bytes as unknown as NodeReadableStream<Uint8Array>);
}

@Controller('api/chat')
export class ChatController {
  constructor(private readonly agent: ChatAgent) {}

  @Post()
  // The session's stored conversation is read from the read model.
  @ReadsReadModel()
  @ApiRoute({
    summary:
      'Chat with the shopping agent: the answer is streamed (Server-Sent Events) and stored in the session',
    tags: ['chat'],
    access: 'gated',
    body: chatRequestBody,
    responses: { 200: { description: CHAT_STREAM_DESCRIPTION, contentType: 'text/event-stream' } },
    errors: [
      {
        status: 400,
        code: 'VALIDATION_ERROR',
        description: 'messages empty or malformed, or the last one is not a user message with text',
      },
      { status: 403, code: 'SessionOwnershipError', description: 'sessionId belongs to another user' },
      { status: 404, code: 'SessionNotFound', description: 'sessionId does not exist' },
      {
        status: 502,
        code: 'UPSTREAM_ERROR',
        description:
          'the model failed or did not start answering in time (the user turn is stored; X-Session-Id names the session)',
      },
      ...gatedErrors,
    ],
  })
  async chat(
    @CurrentIdentity() identity: SessionIdentity,
    @ValidBody() body: ChatRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // Everything that can refuse the request runs here, while an error can still be a JSON answer.
    const turn = await this.agent.begin(identity.userId, body);
    const disconnected = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) disconnected.abort(new Error('the client disconnected'));
    });
    const answer = await this.agent.reply(turn, disconnected.signal);
    // Sent through Fastify rather than the raw socket, so the CORS, correlation, rate-limit and
    // cookie headers its hooks add are kept; Fastify destroys the body when the client goes away.
    reply
      .status(200)
      .headers({ ...UI_MESSAGE_STREAM_HEADERS, 'x-session-id': turn.sessionId })
      .send(sseBody(answer));
  }
}
