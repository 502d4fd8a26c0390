import { DomainError } from '../domain-error';
import { PaymentState } from './payment-state';

/**
 * A digest is credited to the user who claimed it first; anyone else asking about it is refused
 * rather than shown another user's payment.
 */
export function assertClaimedBy(state: PaymentState, userId: string): void {
  if (state.userId !== null && state.userId !== userId) {
    throw new DomainError(
      'conflict',
      'TX_HASH_CLAIMED',
      'This transaction was already submitted for another user',
    );
  }
}
