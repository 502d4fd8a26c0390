import { nameBasedUuid } from '../name-based-uuid';

const namespace = '0b6d3f2a-5c1e-4e8a-9f47-2d8c6a1b3e95';

/** The order a deposit shows up as in the order list; derived from the digest, so replay gives the same id. */
export function depositOrderId(txDigest: string): string {
  return nameBasedUuid(namespace, txDigest);
}
