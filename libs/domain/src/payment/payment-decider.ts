import { PaymentEvent } from '@shop/contracts';
import { Decider } from '../decider';
import { DomainError } from '../domain-error';
import { assertClaimedBy } from './payment-claim';
import { PaymentCommand } from './payment-commands';
import { initialPaymentState, PaymentState, awaitsConfirmation } from './payment-state';
import { assessTransaction, canonicalAddress, canonicalCoinType } from './payment-terms';

/**
 * One aggregate per transaction digest. NEW -> PENDING (claimed and verified, or straight to
 * FAILED) -> SUCCESS once the backend acknowledged the deposit confirmation. The claim and its
 * outcome are one commit on an empty subject, so a digest is verified once forever.
 */
export const paymentDecider: Decider<PaymentCommand, PaymentEvent, PaymentState> = {
  initialState: initialPaymentState,

  decide(command, state) {
    switch (command.type) {
      case 'VerifyPayment': {
        if (state.status !== 'NEW') {
          assertClaimedBy(state, command.userId);
          return [];
        }
        if (command.transaction === undefined) {
          throw new Error('VerifyPayment of an unrecorded payment must carry what the chain reported');
        }
        if (command.transaction === null) {
          throw new DomainError(
            'not_found',
            'TRANSACTION_NOT_FOUND',
            'The chain does not know this transaction (not executed, or not indexed yet); nothing was recorded, retry once it is final',
          );
        }
        const { terms } = command;
        const started: PaymentEvent = {
          type: 'PaymentVerificationStarted',
          data: {
            paymentId: command.paymentId,
            userId: command.userId,
            network: terms.network,
            merchant: canonicalAddress(terms.merchant),
            coinType: canonicalCoinType(terms.coinType) ?? terms.coinType,
            minimumAmount: terms.minimumAmount.toString(),
          },
        };
        const assessment = assessTransaction(command.transaction, terms);
        const outcome: PaymentEvent = assessment.ok
          ? {
              type: 'PaymentVerified',
              data: {
                amount: assessment.amount.toString(),
                payer: assessment.payer,
                receiver: assessment.receiver,
                coinType: assessment.coinType,
              },
            }
          : {
              type: 'PaymentVerificationFailed',
              data: {
                code: assessment.code,
                reason: assessment.reason,
                amount: assessment.amount.toString(),
              },
            };
        return [started, outcome];
      }

      case 'RecordConfirmationDelivery': {
        // Another attempt got the acknowledgement first: the deposit is credited once.
        if (state.status === 'SUCCESS') return [];
        if (!awaitsConfirmation(state)) {
          throw new DomainError(
            'conflict',
            'PAYMENT_NOT_VERIFIED',
            'Only a verified payment has a deposit confirmation to deliver',
          );
        }
        const { delivery } = command;
        return [
          delivery.acknowledged
            ? {
                type: 'PaymentConfirmationForwarded',
                data: { backendStatus: delivery.backendStatus, attempts: delivery.attempts },
              }
            : {
                type: 'PaymentConfirmationForwardFailed',
                data: {
                  reason: delivery.reason,
                  backendStatus: delivery.backendStatus,
                  attempts: delivery.attempts,
                },
              },
        ];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'PaymentVerificationStarted':
        return {
          ...state,
          status: 'PENDING',
          paymentId: event.data.paymentId,
          userId: event.data.userId,
          network: event.data.network,
          merchant: event.data.merchant,
          coinType: event.data.coinType,
          minimumAmount: event.data.minimumAmount,
        };
      case 'PaymentVerified':
        return {
          ...state,
          amount: event.data.amount,
          payer: event.data.payer,
          receiver: event.data.receiver,
        };
      case 'PaymentVerificationFailed':
        return {
          ...state,
          status: 'FAILED',
          amount: event.data.amount,
          receiver: state.merchant,
          failureCode: event.data.code,
          failureReason: event.data.reason,
        };
      case 'PaymentConfirmationForwarded':
        return { ...state, status: 'SUCCESS', failureReason: null };
      case 'PaymentConfirmationForwardFailed':
        return { ...state, failureReason: event.data.reason };
    }
  },
};
