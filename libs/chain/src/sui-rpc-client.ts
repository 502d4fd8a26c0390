import { SuiClient, SuiHTTPTransport } from '@mysten/sui/client';

export interface SuiRpcOptions {
  url: string;
  /** Upper bound for one JSON-RPC request; a hung node must not hang a request handler. */
  requestTimeoutMs?: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** A SuiClient whose every request is aborted after `requestTimeoutMs`. */
export function createSuiClient({
  url,
  requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
}: SuiRpcOptions): SuiClient {
  const timedFetch: typeof fetch = (input, init) => {
    const timeout = AbortSignal.timeout(requestTimeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    return fetch(input, { ...init, signal });
  };
  return new SuiClient({ transport: new SuiHTTPTransport({ url, fetch: timedFetch }) });
}
