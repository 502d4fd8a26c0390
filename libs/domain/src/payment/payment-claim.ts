import { DomainError } from '../domain-error';
import { PaymentState } from './payment-state';

/**
 * A digest belongs to the user whose claim the backend acknowledged (or, while it has no
 * acknowledgement to lose, the one whose claim it is); anyone else asking about it is refused
 * rather than shown another user's payment.
 */
export function assertClaimedBy(state: PaymentState, userId: string): void {
  if (state.userId !== null && state.userId !== userId) {
    throw new DomainError(
      'conflict',
      'TX_HASH_CLAIMED',
      'This transaction was already claimed by another user',
    );
  }
}
