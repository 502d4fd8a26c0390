/**
 * `invalid`: the question was refused (a bad query or id); asking again will not help.
 * `timeout`: no answer in time. `upstream`: the search service or the marketplace behind it failed.
 */
export type ProductSearchErrorKind = 'timeout' | 'upstream' | 'invalid';

export class ProductSearchError extends Error {
  override readonly name = 'ProductSearchError';

  constructor(
    readonly kind: ProductSearchErrorKind,
    message: string,
    /** The search service's error code, when it answered with one. */
    readonly code?: string,
  ) {
    super(message);
  }
}
