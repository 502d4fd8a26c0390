import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import {
  convertToModelMessages,
  createUIMessageStream,
  stepCountIs,
  streamText,
  type ModelMessage,
  type UIMessage,
  type UIMessageChunk,
  type UIMessageStreamWriter,
} from 'ai';
import { AGENT_MAX_STEPS, buildSystemPrompt } from '@shop/assistant';
import { DomainError, nameBasedUuid } from '@shop/domain';
import type { Memory } from '@shop/memory';
import type { Logger } from '@shop/logging';
import { CHAT_MODEL, LOGGER, MEMORY_STORE } from '../infrastructure/tokens';
import type { AgentMemory } from '../memory/agent-memory';
import type { ChatMessageResponse } from '../sessions/chat-session.schema';
import { RunSessionCommand } from '../sessions/run-session-command';
import { GetSessionQuery } from '../sessions/session-queries';
import { ChatRequest, requestContextOf, userTurnOf } from './chat-request.schema';
import { ChatTools } from './chat-tools';
import { memoryActivityPart, type MemoryActivityPart } from './memory-activity';
import { SessionTitler } from './session-titler';
import { placeUserTurn, textOfMessage } from './stored-conversation';
import { unrunnableCallAsResult, unrunnableCallsAsResults } from './tool-failure';

/** Namespace of the assistant reply ids derived from the user turn they answer. */
const REPLY_ID_NAMESPACE = '3f0c6a52-7f3e-4b0e-9a51-2c4d8e1b6f70';
/** What the shopper is told when the model fails before answering, in the words of errorText's chunk. */
const MODEL_FAILED = 'The assistant could not answer; please try again.';
/** Memories given to the model per turn, most relevant first. */
const RECALL_LIMIT = 10;

const FINISHED_TOOL_STATES: readonly string[] = ['output-available', 'output-error', 'output-denied'];

/**
 * A part of a reply as it is stored. A tool call whose input or run was cut short is dropped, never
 * stored half made; one the SDK could not run is stored as the failure result the stream showed; text
 * cut short is stored as what was said.
 */
function keptPart(part: UIMessage['parts'][number]): UIMessage['parts'] {
  if (part.type.startsWith('tool-') || part.type === 'dynamic-tool') {
    const { state } = part as { state?: string };
    return state !== undefined && FINISHED_TOOL_STATES.includes(state) ? [unrunnableCallAsResult(part)] : [];
  }
  if (part.type === 'text' && part.state === 'streaming') return [{ ...part, state: 'done' }];
  return [part];
}

/** A request that passed every check: what the stream needs, and nothing sent yet. */
export interface ChatTurn {
  userId: string;
  sessionId: string;
  userText: string;
  /** The request's context the session lacks, the stored history and the new user turn, as the model reads them. */
  modelMessages: ModelMessage[];
  /** Derived from the user turn, so a retried request stores its answer once. */
  replyId: string;
  /** The text to name the session after, when it has no title yet. */
  titleFrom: string | null;
}

/**
 * The chat agent: `begin` does everything that can refuse the request (validation happened in the
 * route; session existence and ownership, storing the user turn) so refusals are JSON errors, then
 * `reply` streams the answer in the UI message stream protocol and stores it.
 */
@Injectable()
export class ChatAgent {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly tools: ChatTools,
    private readonly titler: SessionTitler,
    @Inject(CHAT_MODEL) private readonly model: LanguageModelV3,
    @Inject(MEMORY_STORE) private readonly memory: AgentMemory,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async begin(userId: string, request: ChatRequest): Promise<ChatTurn> {
    const turn = userTurnOf(request);
    let sessionId = request.sessionId;
    let stored: ChatMessageResponse[] = [];
    let untitled = true;
    if (sessionId) {
      const session = await this.queries.execute(new GetSessionQuery(userId, sessionId));
      stored = session.messages;
      untitled = session.title === undefined;
    } else {
      sessionId = randomUUID();
      await this.commands.execute(
        new RunSessionCommand(sessionId, { type: 'CreateSession', userId, title: null }),
      );
    }
    const { earlier, userMessage } = placeUserTurn(
      stored,
      { id: turn.id ?? randomUUID(), text: turn.text },
      requestContextOf(request),
    );
    // The decider checks ownership again against the stream, and stores a retried turn once.
    await this.commands.execute(
      new RunSessionCommand(sessionId, {
        type: 'AppendMessage',
        userId,
        messageId: userMessage.id,
        role: 'user',
        parts: userMessage.parts as unknown as Record<string, unknown>[],
      }),
    );
    const firstUser = [...earlier, userMessage].find((message) => message.role === 'user')!;
    return {
      userId,
      sessionId,
      userText: textOfMessage(userMessage),
      // Earlier turns cut short by a disconnect may hold tool calls without results.
      modelMessages: await convertToModelMessages([...earlier, userMessage], {
        ignoreIncompleteToolCalls: true,
      }),
      replyId: nameBasedUuid(REPLY_ID_NAMESPACE, `${sessionId}:${userMessage.id}`),
      titleFrom: untitled ? textOfMessage(firstUser) : null,
    };
  }

  /**
   * The answer as UI message chunks, once the model has started it: a model that fails before saying
   * anything is refused here (502), while the request can still get a JSON error. After that the stream
   * always ends, with an `error` chunk when something failed.
   */
  async reply(turn: ChatTurn, signal: AbortSignal): Promise<ReadableStream<UIMessageChunk>> {
    const chunks = this.answer(turn, signal).getReader();
    const held: UIMessageChunk[] = [];
    // streamText starts a step only once the model's answer has started (see GuardedModel).
    while (held.at(-1)?.type !== 'start-step') {
      const next = await chunks.read();
      if (next.done) break;
      if (next.value.type === 'error') {
        await chunks.cancel();
        throw new DomainError('upstream', 'UPSTREAM_ERROR', MODEL_FAILED, { 'x-session-id': turn.sessionId });
      }
      held.push(next.value);
    }
    let last = held.at(-1)?.type;
    return new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const chunk of held) controller.enqueue(chunk);
      },
      async pull(controller) {
        const next = await chunks.read();
        if (!next.done) {
          last = next.value.type;
          controller.enqueue(next.value);
          return;
        }
        // A later step's model call that fails outright leaves the SDK's stream at its error chunk.
        if (last === 'error') controller.enqueue({ type: 'finish', finishReason: 'error' });
        controller.close();
      },
      cancel: (reason) => chunks.cancel(reason),
    });
  }

  private answer(turn: ChatTurn, signal: AbortSignal): ReadableStream<UIMessageChunk> {
    return createUIMessageStream({
      onError: (error) => this.errorText(error),
      execute: async ({ writer }) => {
        writer.write({ type: 'start', messageId: turn.replyId });
        const naming =
          turn.titleFrom === null
            ? undefined
            : this.titler.name(turn.userId, turn.sessionId, turn.titleFrom, signal);
        const { memories, activity } = await this.recall(turn, writer, signal);
        const result = streamText({
          model: this.model,
          system: buildSystemPrompt({ preferences: memories.map((memory) => memory.content) }),
          messages: turn.modelMessages,
          tools: this.tools.forShopper(turn.userId, turn.sessionId),
          // A step whose model call broke ends the reply: its error is the last thing the shopper sees.
          stopWhen: [stepCountIs(AGENT_MAX_STEPS), ({ steps }) => steps.at(-1)?.finishReason === 'error'],
          // GuardedModel retries within the request's budget.
          maxRetries: 0,
          abortSignal: signal,
          // Logged once, by errorText, where the error becomes a chunk (the default prints to stderr).
          onError: () => undefined,
        });
        writer.merge(
          result
            .toUIMessageStream({
              sendStart: false,
              onError: (error) => this.errorText(error),
              // Stored before the stream ends, so the client's next read of the session has it.
              onFinish: ({ responseMessage }) => this.store(turn, [activity, ...responseMessage.parts]),
            })
            .pipeThrough(unrunnableCallsAsResults()),
        );
        await naming;
      },
    });
  }

  private async recall(
    turn: ChatTurn,
    writer: UIMessageStreamWriter,
    signal: AbortSignal,
  ): Promise<{ memories: Memory[]; activity: MemoryActivityPart }> {
    const base = { namespace: this.memory.namespaceOf(turn.userId), query: turn.userText };
    writer.write(memoryActivityPart(base, { status: 'loading' }));
    let memories: Memory[] = [];
    let activity: MemoryActivityPart;
    try {
      memories = await this.memory.recall(turn.userId, turn.userText, { limit: RECALL_LIMIT, signal });
      activity = memoryActivityPart(base, { status: 'recalled', memories });
    } catch (error) {
      // The shopper still gets an answer, only without their preferences.
      if (!signal.aborted) this.logger.warn({ err: error, userId: turn.userId }, 'memory recall failed');
      activity = memoryActivityPart(base, { status: 'error' });
    }
    writer.write(activity);
    return { memories, activity };
  }

  private async store(turn: ChatTurn, answer: UIMessage['parts']): Promise<void> {
    const parts = answer.flatMap(keptPart);
    // A reply cut off before the model said or did anything has nothing worth keeping.
    const answered = parts.some((part) => part.type === 'text' || part.type.startsWith('tool-'));
    if (!answered) return;
    await this.commands.execute(
      new RunSessionCommand(turn.sessionId, {
        type: 'AppendMessage',
        userId: turn.userId,
        messageId: turn.replyId,
        role: 'assistant',
        parts: parts as unknown as Record<string, unknown>[],
      }),
    );
  }

  /** The `errorText` of an `error` chunk: a refusal explains itself; anything else stays in the log. */
  private errorText(error: unknown): string {
    if (error instanceof DomainError) return error.message;
    this.logger.error({ err: error }, 'chat stream failed');
    return 'The assistant could not answer; please try again.';
  }
}
