import { setTimeout as sleep } from 'node:timers/promises';
import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3StreamPart,
  type LanguageModelV3StreamResult,
} from '@ai-sdk/provider';

export interface ModelGuardOptions {
  /**
   * The budget of one model call: its answer must start within it, retries and their waits included,
   * and a started stream must not fall silent for longer.
   */
  timeoutMs: number;
  /** Retries of a retryable failure (429, 5xx) before the answer starts. */
  maxRetries?: number;
}

/** The model did not answer within the call's budget. */
export class ModelTimeoutError extends Error {
  override readonly name = 'ModelTimeoutError';
}

const BACKOFF_MS = 500;

/** How long the server asked us to wait (`retry-after-ms`, `retry-after` in seconds), else a backoff. */
function retryDelayMs(error: APICallError, attempt: number): number {
  const headers = error.responseHeaders ?? {};
  const asked = headers['retry-after-ms']
    ? Number(headers['retry-after-ms'])
    : headers['retry-after']
      ? Number(headers['retry-after']) * 1000
      : Number.NaN;
  return Number.isFinite(asked) && asked >= 0 ? asked : BACKOFF_MS * 2 ** attempt;
}

const aborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

const ERROR_FINISH: LanguageModelV3StreamPart = {
  type: 'finish',
  finishReason: { unified: 'error', raw: undefined },
  usage: {
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  },
};

/**
 * The chat model with the gateway's rules for calling it. The SDK's own retries wait as long as a
 * server asks (up to a minute) with no regard for how long the shopper's request has been held;
 * here a call has one budget: a retryable failure is retried only while the wait fits in it, and an
 * answer that has not started when it runs out is given up (a hung server), so the request fails
 * long before the server's idle timeout. `doStream` resolves only once the answer has started, so
 * its failure means "nothing was said". A started stream that breaks (cut connection, silence past
 * the budget) ends with an error part and an error finish instead of a broken stream, so what was
 * already said is kept and the reply still ends properly.
 */
export class GuardedModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls: LanguageModelV3['supportedUrls'];
  private readonly timeoutMs: number;
  private readonly maxRetries: number;

  constructor(
    private readonly inner: LanguageModelV3,
    options: ModelGuardOptions,
  ) {
    this.provider = inner.provider;
    this.modelId = inner.modelId;
    this.supportedUrls = inner.supportedUrls;
    this.timeoutMs = options.timeoutMs;
    this.maxRetries = options.maxRetries ?? 2;
  }

  doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    return this.withinBudget(options, async (signal) =>
      this.inner.doGenerate({ ...options, abortSignal: signal }),
    );
  }

  doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    return this.withinBudget(options, (signal, giveUp) => this.started(options, signal, giveUp));
  }

  private async withinBudget<T>(
    options: LanguageModelV3CallOptions,
    attempt: (signal: AbortSignal, giveUp: AbortController) => Promise<T>,
  ): Promise<T> {
    const deadline = Date.now() + this.timeoutMs;
    for (let retries = 0; ; retries++) {
      const giveUp = new AbortController();
      const timer = setTimeout(
        () => giveUp.abort(new ModelTimeoutError(`the model did not answer within ${this.timeoutMs} ms`)),
        deadline - Date.now(),
      );
      const signal = options.abortSignal
        ? AbortSignal.any([options.abortSignal, giveUp.signal])
        : giveUp.signal;
      try {
        return await Promise.race([attempt(signal, giveUp), aborted(signal)]);
      } catch (error) {
        if (options.abortSignal?.aborted) throw options.abortSignal.reason;
        if (giveUp.signal.aborted) throw giveUp.signal.reason;
        if (!APICallError.isInstance(error) || !error.isRetryable || retries >= this.maxRetries) throw error;
        const wait = retryDelayMs(error, retries);
        if (Date.now() + wait >= deadline) throw error;
        await sleep(wait, undefined, options.abortSignal ? { signal: options.abortSignal } : {});
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /** Reads the answer up to its first part after `stream-start`: an error before that fails the attempt. */
  private async started(
    options: LanguageModelV3CallOptions,
    signal: AbortSignal,
    giveUp: AbortController,
  ): Promise<LanguageModelV3StreamResult> {
    const result = await this.inner.doStream({ ...options, abortSignal: signal });
    const reader = result.stream.getReader();
    const head: LanguageModelV3StreamPart[] = [];
    try {
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        if (next.value.type === 'error') throw next.value.error;
        head.push(next.value);
        if (next.value.type !== 'stream-start') break;
      }
    } catch (error) {
      reader.cancel(error).catch(() => undefined);
      throw error;
    }
    return { ...result, stream: this.watched(head, reader, giveUp, options.abortSignal) };
  }

  private watched(
    head: LanguageModelV3StreamPart[],
    reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart>,
    giveUp: AbortController,
    callerSignal: AbortSignal | undefined,
  ): ReadableStream<LanguageModelV3StreamPart> {
    const timeoutMs = this.timeoutMs;
    return new ReadableStream<LanguageModelV3StreamPart>({
      start(controller) {
        for (const part of head) controller.enqueue(part);
      },
      async pull(controller) {
        let timer: NodeJS.Timeout | undefined;
        const silence = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new ModelTimeoutError(`the model fell silent for ${timeoutMs} ms`)),
            timeoutMs,
          );
        });
        try {
          const next = await Promise.race([reader.read(), silence]);
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          if (callerSignal?.aborted) {
            controller.error(callerSignal.reason);
            return;
          }
          giveUp.abort(error);
          reader.cancel(error).catch(() => undefined);
          controller.enqueue({ type: 'error', error });
          controller.enqueue(ERROR_FINISH);
          controller.close();
        } finally {
          clearTimeout(timer);
        }
      },
      cancel(reason) {
        giveUp.abort(reason);
        return reader.cancel(reason);
      },
    });
  }
}
