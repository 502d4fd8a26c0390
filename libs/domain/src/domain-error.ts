/**
 * A rule of the domain said no. `kind` says what sort of refusal it is; the HTTP layer
 * maps kinds to status codes in one place, and `code` is the spec's error code.
 */
export type DomainErrorKind =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'unprocessable'
  | 'rate_limited'
  | 'upstream'
  | 'unavailable'
  | 'internal';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    readonly code: string,
    message: string,
    /** Response headers that belong to the refusal (Retry-After on a rate limit). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
