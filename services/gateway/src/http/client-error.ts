import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Requests Node refuses before Fastify sees them (headers or request line over the size limit,
 * a malformed request, a client too slow to send its headers) still get the `{error, code}`
 * envelope, written straight to the socket as Node does, then the connection is closed.
 */
export function envelopeClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'REQUEST_TIMEOUT', 'The request was not received in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'REQUEST_HEADER_FIELDS_TOO_LARGE', 'The request line or headers are too large']
        : [400, 'BAD_REQUEST', 'Malformed HTTP request'];
  const body = JSON.stringify({ error: message, code });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
