import { JsonRpcError, SuiHTTPStatusError } from '@mysten/sui/client';
import { backoffMs, type RetryPolicy } from '@shop/retry';
import { ChainError, ChainRpcError, ChainTransportError } from './errors';

/**
 * True when the request may never have been answered by the node: the connection failed or was
 * cut (undici's "fetch failed"), the request timed out, the reply was not JSON, or a gateway in
 * front of the node answered 429/5xx. A JSON-RPC error body is the node's own answer and is
 * never a transport failure.
 */
export function isTransportFailure(error: unknown): boolean {
  if (error instanceof JsonRpcError) return false;
  if (error instanceof SuiHTTPStatusError) return error.status === 429 || error.status >= 500;
  if (error instanceof DOMException) return error.name === 'TimeoutError' || error.name === 'AbortError';
  if (error instanceof TypeError) return error.message === 'fetch failed';
  return error instanceof SyntaxError;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Turns what the SDK threw into this library's errors, keeping the original as `cause`. */
export function toChainError(error: unknown, attempts: number, digest?: string): Error {
  if (error instanceof ChainError) return error;
  if (error instanceof JsonRpcError) return new ChainRpcError(error.message, error.code, { cause: error });
  if (isTransportFailure(error)) {
    const detail = error instanceof Error ? error.message : String(error);
    return new ChainTransportError(
      `Sui RPC unreachable after ${attempts} attempt(s): ${detail}`,
      attempts,
      digest,
      {
        cause: error,
      },
    );
  }
  return error instanceof Error ? error : new ChainError(String(error));
}

/**
 * Runs a request that is safe to repeat and repeats it only on transport failures, with
 * exponential backoff, at most `policy.maxAttempts` times in all.
 */
export async function withTransportRetry<T>(policy: RetryPolicy, operation: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await operation();
    } catch (error) {
      if (!isTransportFailure(error) || attempt >= policy.maxAttempts) throw toChainError(error, attempt);
      await sleep(backoffMs(policy, attempt));
    }
  }
}
