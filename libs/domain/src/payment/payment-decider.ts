import { PaymentEvent } from '@shop/contracts';
import { Decider, unhandledCommand } from '../decider';
import { DomainError } from '../domain-error';
import { assertClaimedBy } from './payment-claim';
import { PaymentCommand, RecordConfirmationDelivery, VerifyPayment } from './payment-commands';
import { awaitsConfirmation, claimReleased, initialPaymentState, PaymentState } from './payment-state';
import { assessTransaction, canonicalAddress, canonicalCoinType } from './payment-terms';

function verifyPayment(command: VerifyPayment, state: PaymentState): PaymentEvent[] {
  if (claimReleased(state)) return reclaim(command.paymentId, command.userId, state);
  // A claim the backend has not acknowledged proves nothing about who paid: anyone may name any
  // user, one whose wallet is still pending among them. So it never blocks another claimant,
  // whose confirmation is delivered next; the backend credits only the user whose wallet sent
  // the payment, so the payer's claim is the only one that can ever be acknowledged.
  if (awaitsConfirmation(state) && state.userId !== command.userId) {
    return reclaim(command.paymentId, command.userId, state);
  }
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

function recordConfirmationDelivery(
  command: RecordConfirmationDelivery,
  state: PaymentState,
): PaymentEvent[] {
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
  if (!delivery.acknowledged && delivery.refused) {
    return [
      {
        type: 'PaymentConfirmationRefused',
        data: { reason: delivery.reason, backendStatus: delivery.backendStatus },
      },
    ];
  }
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

/**
 * One aggregate per transaction digest. NEW -> PENDING (claimed and verified, or straight to
 * FAILED) -> SUCCESS once the backend acknowledged the deposit confirmation, or FAILED with
 * DEPOSIT_REFUSED when the backend refused it for the claiming user. The chain is read once: a
 * refused claim is released and the next verification claims it again from what was recorded;
 * so does another user's verification of a claim not acknowledged yet. Only an acknowledged
 * claim (SUCCESS) is the claimant's for good.
 */
export const paymentDecider: Decider<PaymentCommand, PaymentEvent, PaymentState> = {
  initialState: initialPaymentState,

  decide(command, state) {
    switch (command.type) {
      case 'VerifyPayment':
        return verifyPayment(command, state);
      case 'RecordConfirmationDelivery':
        return recordConfirmationDelivery(command, state);
      default:
        return unhandledCommand(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'PaymentVerificationStarted':
        return {
          ...initialPaymentState(),
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
      case 'PaymentConfirmationRefused':
        return {
          ...state,
          status: 'FAILED',
          failureCode: 'DEPOSIT_REFUSED',
          failureReason: event.data.reason,
        };
    }
  },
};

/**
 * A released or unacknowledged digest claimed by `userId`, verified from what the chain said the
 * first time.
 */
function reclaim(paymentId: string, userId: string, state: PaymentState): PaymentEvent[] {
  const { network, merchant, coinType, minimumAmount, amount, payer, receiver } = state;
  if (!network || !merchant || !coinType || !minimumAmount || !amount || !payer || !receiver) {
    throw new Error('a refused payment lacks the verification it was refused with');
  }
  return [
    {
      type: 'PaymentVerificationStarted',
      data: { paymentId, userId, network, merchant, coinType, minimumAmount },
    },
    { type: 'PaymentVerified', data: { amount, payer, receiver, coinType } },
  ];
}
