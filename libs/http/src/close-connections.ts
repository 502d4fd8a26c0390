import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

export interface CloseConnectionsOptions {
  /**
   * How long requests in hand when the app starts closing may take to finish before their
   * connections are cut (a streamed response, a request waiting on a hung upstream).
   */
  drainMs?: number;
}

/**
 * Makes closing the app (Nest's `app.close()`, Fastify's `close()`) end the HTTP server's
 * connections instead of waiting for clients to drop them. Node's `server.close()` only ends the
 * connections idle at that moment: a keep-alive connection whose request finishes afterwards, or
 * one holding a stream or a stuck request, stays open until a socket timeout (the gateway's is two
 * minutes) and `close()` waits for it. Here, once closing begins, idle connections are closed at once, requests in hand
 * answer with `Connection: close` (their connection ends with the response), and whatever is
 * still open after `drainMs` is closed.
 *
 * Call it before the app listens (Fastify takes no hooks once started).
 */
export function closeConnectionsWhenClosing(
  fastify: FastifyInstance,
  { drainMs = 1_000 }: CloseConnectionsOptions = {},
): void {
  const server = fastify.server as Server;
  const inHand = new Set<ServerResponse>();
  let closing = false;

  /** A connection ends with its response: said in the response when its head is not out yet. */
  const endWithResponse = (response: ServerResponse) => {
    if (!response.headersSent) response.setHeader('connection', 'close');
    else response.once('finish', () => server.closeIdleConnections());
  };

  server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    if (closing) return endWithResponse(response);
    inHand.add(response);
    response.once('close', () => inHand.delete(response));
  });

  fastify.addHook('preClose', (done) => {
    closing = true;
    for (const response of inHand) endWithResponse(response);
    inHand.clear();
    server.closeIdleConnections();
    const cut = setTimeout(() => server.closeAllConnections(), drainMs).unref();
    server.once('close', () => clearTimeout(cut));
    done();
  });
}
