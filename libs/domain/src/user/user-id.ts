import { nameBasedUuid } from '../name-based-uuid';

const namespace = '6f1c2b1e-8a52-4f7e-9c0d-3a7e5b9d2c41';

/**
 * The internal user id is a name-based UUID of the provider subject: every gateway computes
 * the same id with no lookup, so concurrent first sessions race on one subject and the
 * expected-sequence check lets exactly one registration through.
 */
export function userIdForProviderSubject(providerSubject: string): string {
  return nameBasedUuid(namespace, providerSubject);
}
