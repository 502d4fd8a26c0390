import { z } from 'zod';
import { defineEvent } from '../event-definition';

/** Base units (MIST) as digits: u64 amounts exceed a float's exact range. */
const mist = z.string().regex(/^\d+$/);
const suiAddress = z.string().regex(/^0x[0-9a-f]{64}$/);
/** A Move coin type with its package address in full, e.g. `0x00…02::sui::SUI`. */
const coinType = z.string().regex(/^0x[0-9a-f]{64}::\w+::\w+$/);

export const paymentFailureCodes = [
  'TRANSACTION_FAILED',
  'NO_PAYMENT_TO_MERCHANT',
  'WRONG_COIN_TYPE',
  'AMOUNT_TOO_SMALL',
  'UNKNOWN_PAYER',
  'DEPOSIT_REFUSED',
] as const;
export type PaymentFailureCode = (typeof paymentFailureCodes)[number];

export const PaymentVerificationStarted = defineEvent({
  type: 'PaymentVerificationStarted',
  version: 1,
  aggregate: 'payment',
  description:
    'A chain transaction (the aggregate id is its digest) was claimed for a user and checked against the terms recorded here. Always stored with its outcome, on an empty subject: a digest is claimed once forever.',
  schema: z.object({
    paymentId: z.uuid(),
    userId: z.uuid(),
    network: z.string().min(1),
    merchant: suiAddress,
    coinType,
    minimumAmount: mist,
  }),
});

export const PaymentVerified = defineEvent({
  type: 'PaymentVerified',
  version: 1,
  aggregate: 'payment',
  description:
    'The transaction succeeded and paid the merchant at least the minimum in the accepted coin; the deposit confirmation is still to be delivered (status PENDING).',
  schema: z.object({ amount: mist, payer: suiAddress, receiver: suiAddress, coinType }),
});

export const PaymentVerificationFailed = defineEvent({
  type: 'PaymentVerificationFailed',
  version: 1,
  aggregate: 'payment',
  description:
    'The transaction does not pay for a deposit (status FAILED, final: a transaction never changes). `amount` is what the merchant received in the accepted coin.',
  schema: z.object({ code: z.enum(paymentFailureCodes), reason: z.string().min(1).max(500), amount: mist }),
});

export const PaymentConfirmationForwarded = defineEvent({
  type: 'PaymentConfirmationForwarded',
  version: 1,
  aggregate: 'payment',
  description:
    'The backend acknowledged the deposit confirmation (2xx, or 409 DEPOSIT_ALREADY_CREDITED): status SUCCESS.',
  schema: z.object({ backendStatus: z.number().int(), attempts: z.number().int().positive() }),
});

export const PaymentConfirmationForwardFailed = defineEvent({
  type: 'PaymentConfirmationForwardFailed',
  version: 1,
  aggregate: 'payment',
  description:
    'The deposit confirmation could not be delivered after bounded retries; the payment stays PENDING, and the reconciler (or the next verify of the digest) delivers it again.',
  schema: z.object({
    reason: z.string().min(1).max(500),
    backendStatus: z.number().int().nullable(),
    attempts: z.number().int().positive(),
  }),
});

export const PaymentConfirmationRefused = defineEvent({
  type: 'PaymentConfirmationRefused',
  version: 1,
  aggregate: 'payment',
  description:
    'The backend refused the deposit confirmation for good (the user has no such wallet, or did not pay it): status FAILED with code DEPOSIT_REFUSED, and the digest is released, so whoever did pay it can verify it for themselves.',
  schema: z.object({ reason: z.string().min(1).max(500), backendStatus: z.number().int() }),
});

export const paymentEvents = [
  PaymentVerificationStarted,
  PaymentVerified,
  PaymentVerificationFailed,
  PaymentConfirmationForwarded,
  PaymentConfirmationForwardFailed,
  PaymentConfirmationRefused,
] as const;
