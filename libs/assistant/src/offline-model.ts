import { setTimeout as sleep } from 'node:timers/promises';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import { contentOf, finishReasonOf, streamPartsOf } from './offline/model-output';
import { planOfflineAnswer, type OfflineAnswer } from './offline/offline-answer';

export const OFFLINE_PROVIDER = 'offline';
export const OFFLINE_MODEL_ID = 'offline-shopping-assistant';

export interface OfflineChatModelOptions {
  /**
   * Pause before each streamed part, so a local UI shows text arriving the way a hosted model sends it.
   * 0 (the default) streams as fast as the reader reads.
   */
  chunkDelayMs?: number;
}

/** Hands out parts one read at a time, so an abort stops the stream between any two parts. */
function partStream(
  parts: readonly LanguageModelV3StreamPart[],
  signal: AbortSignal | undefined,
  delayMs: number,
): ReadableStream<LanguageModelV3StreamPart> {
  let next = 0;
  let stopOnAbort: (() => void) | undefined;
  const release = () => {
    if (stopOnAbort) signal?.removeEventListener('abort', stopOnAbort);
  };
  return new ReadableStream<LanguageModelV3StreamPart>({
    start(controller) {
      stopOnAbort = () => controller.error(signal?.reason);
      signal?.addEventListener('abort', stopOnAbort, { once: true });
    },
    async pull(controller) {
      if (delayMs > 0) await sleep(delayMs, undefined, signal ? { signal } : {});
      const part = parts[next++];
      if (part) controller.enqueue(part);
      if (next >= parts.length) {
        controller.close();
        release();
      }
    },
    cancel: release,
  });
}

/**
 * A language model that needs no network: it implements the AI SDK's LanguageModelV3 itself, reads the
 * conversation (including earlier tool calls and results) and answers shopping requests with real tool
 * calls, then a reply built only from the tool results. It stands in for the hosted model when no API
 * key is configured, in development and in tests, and behaves the same through streamText's tool loop.
 */
export class OfflineChatModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider = OFFLINE_PROVIDER;
  readonly modelId = OFFLINE_MODEL_ID;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  private readonly chunkDelayMs: number;

  constructor(options: OfflineChatModelOptions = {}) {
    this.chunkDelayMs = options.chunkDelayMs ?? 0;
  }

  private decide(options: LanguageModelV3CallOptions): OfflineAnswer {
    options.abortSignal?.throwIfAborted();
    const offered =
      options.toolChoice?.type === 'none'
        ? []
        : (options.tools ?? []).flatMap((tool) => (tool.type === 'function' ? [tool.name] : []));
    return planOfflineAnswer(options.prompt, offered);
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { step, ids, usage } = this.decide(options);
    return { content: contentOf(step, ids), finishReason: finishReasonOf(step), usage, warnings: [] };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const { step, ids, usage } = this.decide(options);
    return { stream: partStream(streamPartsOf(step, ids, usage), options.abortSignal, this.chunkDelayMs) };
  }
}
