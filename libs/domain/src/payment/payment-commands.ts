import { ObservedTransaction, PaymentTerms } from './payment-terms';

export interface VerifyPayment {
  type: 'VerifyPayment';
  /** Given to the payment when this command is the one that records it. */
  paymentId: string;
  userId: string;
  terms: PaymentTerms;
  /**
   * What the chain reports for the digest, null when it does not know it. Left out for a payment
   * already recorded: its history settles the outcome, so the chain is not asked again.
   */
  transaction?: ObservedTransaction | null;
}

/**
 * Acknowledged: the backend credited it (now or before). Refused: the backend will never credit it
 * for this user (a 4xx that is not "in progress"). Otherwise it is undelivered and is tried again.
 */
export type ConfirmationDelivery =
  | { acknowledged: true; backendStatus: number; attempts: number }
  | { acknowledged: false; refused: true; reason: string; backendStatus: number; attempts: number }
  | { acknowledged: false; refused: false; reason: string; backendStatus: number | null; attempts: number };

export interface RecordConfirmationDelivery {
  type: 'RecordConfirmationDelivery';
  delivery: ConfirmationDelivery;
}

export type PaymentCommand = VerifyPayment | RecordConfirmationDelivery;
