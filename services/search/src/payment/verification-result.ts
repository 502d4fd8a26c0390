import { PaymentState } from '@shop/domain';
import { OutcomeError } from '../http/outcome-error';
import { VerificationResult } from './payment-schemas';

/**
 * The verify answer from the payment's history: the result when it SUCCEEDED, else an error that
 * carries it (422 with the failure code when FAILED, 502 while the confirmation is undelivered).
 */
export function verificationAnswer(txHash: string, state: PaymentState): VerificationResult {
  const { status, paymentId, network, amount, failureReason } = state;
  if (status === 'NEW' || !paymentId || !network || !amount) {
    throw new Error(`payment ${txHash} has no recorded verification to answer with`);
  }
  const result: VerificationResult = {
    success: status === 'SUCCESS',
    transactionHash: txHash,
    amount,
    network,
    paymentId,
    status,
    failureReason,
  };
  if (status === 'SUCCESS') return result;
  if (status === 'FAILED') {
    throw new OutcomeError(
      'unprocessable',
      state.failureCode ?? 'PAYMENT_REJECTED',
      failureReason ?? '',
      result,
    );
  }
  throw new OutcomeError(
    'upstream',
    'DEPOSIT_CONFIRMATION_FAILED',
    `The payment is verified, but the backend has not acknowledged the deposit (${failureReason ?? 'no answer'}); verify again to retry the delivery`,
    result,
  );
}
