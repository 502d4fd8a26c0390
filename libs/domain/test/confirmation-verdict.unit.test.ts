import { describe, expect, it } from 'vitest';
import { confirmationVerdict } from '../src/payment/confirmation-verdict';

describe("the backend's answer to a deposit confirmation", () => {
  it('acknowledges a credit, made now or before', () => {
    expect(confirmationVerdict(200, undefined, true)).toBe('acknowledged');
    expect(confirmationVerdict(409, 'DEPOSIT_ALREADY_CREDITED', false)).toBe('acknowledged');
  });

  it('asks again when a 2xx does not acknowledge the digest in its body', () => {
    for (const status of [200, 201, 204]) expect(confirmationVerdict(status, undefined, false)).toBe('retry');
  });

  it('asks again soon while the backend is busy or still crediting', () => {
    for (const status of [500, 502, 503, 408, 429])
      expect(confirmationVerdict(status, undefined, false)).toBe('retry');
    expect(confirmationVerdict(409, 'DEPOSIT_IN_PROGRESS', false)).toBe('retry');
  });

  it.each([
    [400, 'USER_NOT_FOUND'],
    [400, 'INVALID_COIN_TYPE'],
    [400, 'WALLET_MISMATCH'],
    [400, 'INVALID_AMOUNT'],
    [409, 'CONFLICT'],
  ])('fails for good what no later delivery can change: %i %s', (status, code) => {
    expect(confirmationVerdict(status, code, false)).toBe('refused');
  });

  it.each([
    [400, 'WALLET_NOT_PROVISIONED'],
    [400, 'VALIDATION_ERROR'],
    [400, 'BAD_REQUEST'],
    [400, undefined],
    [422, 'SOMETHING_NEW'],
    [401, 'UNAUTHORIZED'],
    [404, 'NOT_FOUND'],
    [409, 'SOMETHING_NEW'],
  ])('keeps PENDING, for a later delivery, a refusal that can change: %i %s', (status, code) => {
    expect(confirmationVerdict(status, code, false)).toBe('later');
  });
});
