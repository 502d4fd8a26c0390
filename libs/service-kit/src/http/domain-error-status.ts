import { DomainErrorKind } from '@shop/domain';

/** The HTTP status of each kind of domain refusal, for every service's error envelope. */
export const statusOfDomainErrorKind: Record<DomainErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  rate_limited: 429,
  upstream: 502,
  unavailable: 503,
  internal: 500,
};
