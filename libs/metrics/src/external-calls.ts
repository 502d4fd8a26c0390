import diagnosticsChannel from 'node:diagnostics_channel';
import { ServiceMetrics } from './service-metrics';

/** An external system reached over HTTP, known by its base URL. */
export interface ExternalTarget {
  client: string;
  url: string;
}

interface UndiciRequest {
  origin?: string;
  method?: string;
}

interface ConnectParams {
  protocol?: string;
  hostname?: string;
  host?: string;
  port?: string | number;
}

/**
 * Times the calls that the provider and chain clients make, without touching the clients:
 * Node's fetch (undici) announces every request, response and failure on diagnostics
 * channels, and a call is attributed to a client by its origin. Whatever HTTP library a client
 * uses underneath fetch, and whichever retries it makes, each attempt is one observation.
 * Returns the function that stops observing.
 */
export function observeExternalCalls(
  metrics: ServiceMetrics,
  targets: readonly ExternalTarget[],
): () => void {
  const clients = new Map<string, string>();
  for (const target of targets) clients.set(new URL(target.url).origin, target.client);
  if (clients.size === 0) return () => undefined;
  const started = new WeakMap<object, { client: string; method: string; at: number }>();

  const finish = (request: object, outcome: string) => {
    const call = started.get(request);
    if (!call) return;
    started.delete(request);
    metrics.externalCallDuration.observe(
      { client: call.client, method: call.method, outcome },
      (performance.now() - call.at) / 1000,
    );
  };

  const onCreate = (message: unknown) => {
    const { request } = message as { request: UndiciRequest };
    const client = request.origin ? clients.get(new URL(request.origin).origin) : undefined;
    if (client) started.set(request, { client, method: request.method ?? 'GET', at: performance.now() });
  };
  const onHeaders = (message: unknown) => {
    const { request, response } = message as { request: object; response: { statusCode: number } };
    const call = started.get(request);
    if (!call) return;
    const outcome = `${Math.floor(response.statusCode / 100)}xx`;
    if (response.statusCode >= 500) metrics.externalCallErrors.inc({ client: call.client, reason: outcome });
    // The call is timed to its response headers: a body is read by the client at its own pace.
    finish(request, outcome);
  };
  const onError = (message: unknown) => {
    const { request, error } = message as { request: object; error: Error };
    const call = started.get(request);
    if (!call) return;
    metrics.externalCallErrors.inc({
      client: call.client,
      reason: error.name === 'AbortError' ? 'timeout' : 'error',
    });
    finish(request, 'error');
  };
  // A refused connection fails before any request is created: counted as an error, not timed.
  const onConnectError = (message: unknown) => {
    const { connectParams } = message as { connectParams: ConnectParams };
    const origin = originOf(connectParams);
    const client = origin ? clients.get(origin) : undefined;
    if (client) metrics.externalCallErrors.inc({ client, reason: 'connect' });
  };

  const subscriptions: [string, (message: unknown) => void][] = [
    ['undici:request:create', onCreate],
    ['undici:request:headers', onHeaders],
    ['undici:request:error', onError],
    ['undici:client:connectError', onConnectError],
  ];
  for (const [name, listener] of subscriptions) diagnosticsChannel.subscribe(name, listener);
  return () => {
    for (const [name, listener] of subscriptions) diagnosticsChannel.unsubscribe(name, listener);
  };
}

function originOf(params: ConnectParams): string | null {
  if (!params.protocol || !params.hostname) return null;
  try {
    const url = new URL(`${params.protocol}//${params.hostname}`);
    if (params.port) url.port = String(params.port);
    return url.origin;
  } catch {
    return null;
  }
}
