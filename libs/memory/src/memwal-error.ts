/**
 * `timeout`: no answer in time. `aborted`: the caller gave up. `network`: no connection.
 * `http`: the relayer answered with an error status (401: key not registered for the account, or the
 * wrong network; 426: client too old). `invalid-response`: a success whose body is not what the relayer
 * sends.
 */
export type MemwalErrorKind = 'timeout' | 'aborted' | 'network' | 'http' | 'invalid-response';

export class MemwalError extends Error {
  override readonly name = 'MemwalError';

  constructor(
    readonly kind: MemwalErrorKind,
    message: string,
    readonly details: {
      status?: number;
      /** The relayer's `code` (or `error`) field, when it sent one. */
      serverCode?: string;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: details.cause });
  }
}
