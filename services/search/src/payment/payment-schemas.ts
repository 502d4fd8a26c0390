import { isValidTransactionDigest } from '@mysten/sui/utils';
import { z } from 'zod';
import { apiSchema } from '@shop/http';

/** The spec's txHash: letters and digits, at most 200. */
export const txHashSchema = z.string().regex(/^[A-Za-z0-9]{1,200}$/, 'must be 1 to 200 letters or digits');

export const verifyBodySchema = apiSchema(
  'PaymentVerifyRequest',
  z.strictObject({
    txHash: txHashSchema
      .refine(isValidTransactionDigest, 'is not a chain transaction digest (base58 of 32 bytes)')
      .describe('the transaction digest that paid the merchant'),
    userId: z.uuid().describe('the user the deposit is credited to'),
  }),
);
export type VerifyBody = z.infer<typeof verifyBodySchema>;

const paymentStatus = z.enum(['PENDING', 'SUCCESS', 'FAILED']);

export const verificationResultSchema = apiSchema(
  'PaymentVerifyResult',
  z.object({
    success: z.boolean().describe('true once verified and acknowledged by the backend'),
    transactionHash: z.string(),
    amount: z.string().describe('MIST paid to the merchant in the accepted coin'),
    network: z.string(),
    paymentId: z.uuid(),
    status: paymentStatus,
    failureReason: z.string().nullable(),
  }),
);
export type VerificationResult = z.infer<typeof verificationResultSchema>;

/**
 * A transaction record: the spec's {txHash, amount, receiver, status, createdAt} and the payment's
 * own facts. Never who paid or who it is credited to: the routes are public, and a digest is not
 * a credential.
 */
export const paymentRecordSchema = apiSchema(
  'TransactionRecord',
  z.object({
    paymentId: z.uuid(),
    txHash: z.string(),
    status: paymentStatus,
    amount: z.string().describe('MIST'),
    receiver: z.string(),
    network: z.string(),
    currency: z.string().describe('coin type'),
    failureCode: z.string().nullable(),
    failureReason: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  }),
);
export type PaymentRecord = z.infer<typeof paymentRecordSchema>;

export const txHashParamsSchema = z.object({ txHash: txHashSchema });
export const paymentIdParamsSchema = z.object({ paymentId: z.uuid() });
