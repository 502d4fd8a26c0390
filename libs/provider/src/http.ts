import { z } from 'zod';
import { backoffMs, defaultRetryPolicy, type RetryPolicy } from '@shop/retry';
import { inSpan, traceEvent } from '@shop/tracing';
import { errorFromResponse, ProviderError } from './provider-error';

export interface ProviderHttpOptions {
  baseUrl: string;
  apiKey: string;
  /**
   * Deadline of one client call, retries and back-off included, so a caller holding an HTTP
   * request of its own knows the longest it can wait.
   */
  timeoutMs: number;
  retry?: RetryPolicy;
  fetch?: typeof fetch;
}

export interface ProviderRequest<S extends z.ZodType> {
  operation: string;
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Sent as `x-idempotency-key`; the provider answers a repeat with the first result, so a retry is safe. */
  idempotencyKey?: string;
  /** A POST that is idempotent by the provider's own rules (a wallet per owner), hence safe to repeat. */
  idempotent?: boolean;
  schema: S;
}

export interface ProviderResponse<T> {
  status: number;
  data: T;
}

/** Locators such as `email:a@b.c:evm` travel unescaped in the provider's own samples; `:` and `@` are legal in a path segment. */
export function pathSegment(value: string): string {
  return encodeURIComponent(value).replace(/%3A/gi, ':').replace(/%40/g, '@');
}

export class ProviderHttp {
  private readonly baseUrl: string;
  private readonly retry: RetryPolicy;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: ProviderHttpOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retry = options.retry ?? defaultRetryPolicy;
    this.fetchImpl = options.fetch ?? fetch;
  }

  /** One call as a span of the caller's trace: each attempt is a fetch of its own, each retry an event. */
  send<S extends z.ZodType>(request: ProviderRequest<S>): Promise<ProviderResponse<z.output<S>>> {
    return inSpan(`provider ${request.operation}`, {}, () => this.sendWithRetries(request));
  }

  private async sendWithRetries<S extends z.ZodType>(
    request: ProviderRequest<S>,
  ): Promise<ProviderResponse<z.output<S>>> {
    const startedAt = performance.now();
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    // A POST without an idempotency guarantee may have taken effect before the failure; repeating it could pay twice.
    const repeatable =
      request.method === 'GET' || request.idempotent === true || request.idempotencyKey !== undefined;
    const maxAttempts = repeatable ? this.retry.maxAttempts : 1;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(request, deadline);
      } catch (error) {
        if (!(error instanceof ProviderError) || !error.transient || attempt >= maxAttempts) throw error;
        const delay = this.backoff(attempt);
        const remaining = this.options.timeoutMs - (performance.now() - startedAt);
        if (delay >= remaining) throw error;
        traceEvent('retry', { attempt, reason: error.message, 'retry.delay_ms': Math.round(delay) });
        await sleep(delay);
      }
    }
  }

  private async attempt<S extends z.ZodType>(
    request: ProviderRequest<S>,
    deadline: AbortSignal,
  ): Promise<ProviderResponse<z.output<S>>> {
    const { operation } = request;
    const headers: Record<string, string> = { 'x-api-key': this.options.apiKey, accept: 'application/json' };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if (request.idempotencyKey !== undefined) headers['x-idempotency-key'] = request.idempotencyKey;

    let status: number;
    let text: string;
    try {
      const response = await this.fetchImpl(this.url(request), {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: deadline,
      });
      status = response.status;
      text = await response.text();
    } catch (cause) {
      if (deadline.aborted) {
        const providerMessage = `no answer within ${this.options.timeoutMs} ms`;
        throw new ProviderError({ kind: 'timeout', operation, providerMessage, cause });
      }
      throw new ProviderError({
        kind: 'unavailable',
        operation,
        providerMessage: describeFailure(cause),
        cause,
      });
    }

    const body = parseJson(text);
    if (status < 200 || status >= 300) {
      // Proxies in front of the provider answer 502/504 with HTML; its first words still help an operator.
      throw errorFromResponse(
        operation,
        status,
        body.ok ? body.value : { message: text.slice(0, 200) || undefined },
      );
    }
    const parsed = body.ok ? request.schema.safeParse(body.value) : undefined;
    if (!parsed?.success) {
      const problem = parsed ? z.prettifyError(parsed.error) : 'body is not JSON';
      throw new ProviderError({
        kind: 'unavailable',
        operation,
        status,
        // What came back, for the caller that counts this 2xx as done (a funding, an order).
        providerMessage: `unexpected answer: ${problem}; body: ${text.slice(0, 300)}`,
      });
    }
    return { status, data: parsed.data };
  }

  private url(request: ProviderRequest<z.ZodType>): string {
    const query = request.query ? `?${new URLSearchParams(request.query).toString()}` : '';
    return `${this.baseUrl}${request.path}${query}`;
  }

  /** Exponential with jitter, so clients that failed together do not come back together. */
  private backoff(attempt: number): number {
    const ceiling = backoffMs(this.retry, attempt);
    return ceiling / 2 + (Math.random() * ceiling) / 2;
  }
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function describeFailure(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const code = (cause.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? `${cause.message} (${code})` : cause.message;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
