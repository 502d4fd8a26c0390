import { PaymentFailureCode } from '@shop/contracts';

/**
 * NEW: nothing recorded for the digest. PENDING: claimed; once `amount` is set it is verified and
 * the deposit confirmation awaits delivery. SUCCESS: the backend acknowledged it. FAILED: the
 * transaction does not pay for a deposit, for good.
 */
export type PaymentStatus = 'NEW' | 'PENDING' | 'SUCCESS' | 'FAILED';

export interface PaymentState {
  status: PaymentStatus;
  paymentId: string | null;
  userId: string | null;
  network: string | null;
  merchant: string | null;
  coinType: string | null;
  minimumAmount: string | null;
  /** MIST paid to the merchant in the accepted coin: the verified amount, or what fell short. */
  amount: string | null;
  payer: string | null;
  receiver: string | null;
  failureCode: PaymentFailureCode | null;
  /** Why it FAILED, or why a PENDING payment's confirmation has not been delivered yet. */
  failureReason: string | null;
}

export const initialPaymentState = (): PaymentState => ({
  status: 'NEW',
  paymentId: null,
  userId: null,
  network: null,
  merchant: null,
  coinType: null,
  minimumAmount: null,
  amount: null,
  payer: null,
  receiver: null,
  failureCode: null,
  failureReason: null,
});

/**
 * Refused by the backend for the user who claimed it: the digest is free again, for whoever did
 * pay it, so a stranger verifying someone else's payment cannot lock it.
 */
export function claimReleased(state: PaymentState): boolean {
  return state.status === 'FAILED' && state.failureCode === 'DEPOSIT_REFUSED';
}

/** Verified and not yet acknowledged by the backend: the one state with a confirmation to deliver. */
export function awaitsConfirmation(state: PaymentState): boolean {
  return state.status === 'PENDING' && state.amount !== null;
}
