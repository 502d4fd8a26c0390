import { DomainError, DomainErrorKind } from '@shop/domain';

/**
 * A failure that still has a body: a payment verification that ran and did not succeed, or the
 * scraping platform's health when it is unavailable.
 */
export class OutcomeError<T> extends DomainError {
  constructor(
    kind: DomainErrorKind,
    code: string,
    message: string,
    readonly data: T,
  ) {
    super(kind, code, message);
    this.name = 'OutcomeError';
  }
}
