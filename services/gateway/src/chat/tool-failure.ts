import type { UIMessage, UIMessageChunk } from 'ai';
import { TOOL_FAILURE_CODES, toolFailed, type ToolFailureResult } from '@shop/assistant';
import { DomainError } from '@shop/domain';
import type { Logger } from '@shop/logging';
import { MemwalError } from '@shop/memory';
import { ProductSearchError } from '@shop/product-search';

/**
 * Refusals whose REST message is not for a shopper: it carries the provider's or the chain's own
 * words, or names a route the shopper cannot call from a chat. The original message is logged.
 */
const CHAT_MESSAGES: Readonly<Record<string, string>> = {
  CheckoutOrderCreationError:
    'The payment provider could not create the order right now; please try again later',
  CheckoutPaymentError: 'The payment provider could not prepare the payment; please try again later',
  UPSTREAM_ERROR: 'The shop could not reach a service it needs right now; please try again later',
  CART_NOT_INITIALIZED: 'Your on-chain cart is not set up yet',
};

/** What went wrong is unknown: the shopper is told only that it did not happen. */
const UNEXPECTED = 'The shop could not complete this action right now; please try again';

/**
 * The result a tool answers for an expected failure: a refusal of the shop's rules keeps the code and
 * message its REST route answers (cart full, duplicate, item not found, no wallet or address, too
 * little USDC, the provider's refusal); an unreachable dependency says which one. Undefined for
 * anything else.
 */
export function expectedToolFailure(error: unknown): ToolFailureResult | undefined {
  if (error instanceof DomainError) return toolFailed(error.code, CHAT_MESSAGES[error.code] ?? error.message);
  if (error instanceof ProductSearchError) {
    if (error.kind === 'invalid') return toolFailed(TOOL_FAILURE_CODES.invalidInput, error.message);
    return toolFailed(
      TOOL_FAILURE_CODES.unavailable,
      error.kind === 'timeout'
        ? 'The product search did not answer in time'
        : 'The product search is unavailable right now',
    );
  }
  if (error instanceof MemwalError)
    return toolFailed(TOOL_FAILURE_CODES.unavailable, 'The memory service is unavailable right now');
  return undefined;
}

/** The result of a tool call the SDK could not run (unknown tool, input that fails its schema). */
const unrunnableToolCall = (): ToolFailureResult =>
  toolFailed(TOOL_FAILURE_CODES.invalidInput, 'The assistant asked for something the shop could not read');

/**
 * The tools never throw, so the SDK makes a `tool-output-error` only of a call it could not run (a
 * hosted model's unknown tool or malformed input). The stream carries it as a failure result like any
 * other; its detail went to the model, and to the log through the stream's onError.
 */
export function unrunnableCallsAsResults(): TransformStream<UIMessageChunk, UIMessageChunk> {
  return new TransformStream({
    transform(chunk, controller) {
      if (chunk.type !== 'tool-output-error') return controller.enqueue(chunk);
      const { errorText: _detail, ...rest } = chunk;
      controller.enqueue({ ...rest, type: 'tool-output-available', output: unrunnableToolCall() });
    },
  });
}

type MessagePart = UIMessage['parts'][number];

/** The stored form of the same call, so a reload replays what the stream showed. */
export function unrunnableCallAsResult(part: MessagePart): MessagePart {
  const { state } = part as { state?: string };
  if (state !== 'output-error') return part;
  const { errorText: _detail, ...rest } = part as MessagePart & { errorText?: string };
  return { ...rest, state: 'output-available', output: unrunnableToolCall() } as MessagePart;
}

/**
 * A tool's `execute` that never throws: whatever `run` throws becomes a failure result. The unexpected
 * is logged with its details and answered with a generic message; a run stopped because the request
 * was aborted is not logged.
 */
export function failuresAsResults(logger: Logger, userId: string) {
  return <I, O>(
      tool: string,
      run: (input: I, toolCallId: string, signal?: AbortSignal) => Promise<O>,
      /** Fields of the call a client's failure card shows, e.g. the fact a memory was to keep. */
      failureFields?: (input: I) => Record<string, unknown>,
    ) =>
    async (
      input: I,
      { toolCallId, abortSignal }: { toolCallId: string; abortSignal?: AbortSignal },
    ): Promise<O | ToolFailureResult> => {
      try {
        return await run(input, toolCallId, abortSignal);
      } catch (error) {
        let failure = expectedToolFailure(error);
        if (!failure) {
          if (!abortSignal?.aborted) logger.error({ err: error, tool, userId }, 'chat tool failed');
          failure = toolFailed(TOOL_FAILURE_CODES.internal, UNEXPECTED);
        } else if (error instanceof Error && error.message !== failure.message) {
          logger.warn({ err: error, tool, userId, code: failure.code }, 'chat tool refused');
        }
        return failureFields ? { ...failureFields(input), ...failure } : failure;
      }
    };
}
