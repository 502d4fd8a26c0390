import { z } from 'zod';

/** Amounts are decimal strings in token units ("14.06"), never base units. */
export const moneySchema = z.object({ amount: z.string(), currency: z.string() });

const lineItemSchema = z.object({
  chain: z.string().optional(),
  quantity: z.number().optional(),
  metadata: z
    .object({
      name: z.string().optional(),
      description: z.string().optional(),
      imageUrl: z.string().optional(),
    })
    .optional(),
  quote: z.object({ status: z.string().optional(), totalPrice: moneySchema.optional() }).optional(),
  delivery: z.object({ status: z.string(), txId: z.string().optional() }).optional(),
});

const paymentSchema = z.object({
  status: z.string(),
  method: z.string().optional(),
  currency: z.string().optional(),
  /** Present only while the order is payable: the unsigned transaction the payer's wallet must approve. */
  preparation: z
    .object({
      chain: z.string().optional(),
      payerAddress: z.string().optional(),
      serializedTransaction: z.string().optional(),
    })
    .optional(),
  received: z
    .object({ txId: z.string().optional(), amount: z.string().optional(), currency: z.string().optional() })
    .optional(),
  refunded: z
    .object({ txId: z.string().optional(), amount: z.string().optional(), currency: z.string().optional() })
    .optional(),
  failureReason: z.object({ code: z.string().optional(), message: z.string().optional() }).optional(),
});

/**
 * The provider adds fields over time and documents statuses loosely, so unknown keys are dropped
 * and status strings stay strings rather than closed enums that would reject a new value.
 */
export const orderSchema = z.object({
  orderId: z.string(),
  phase: z.string(),
  locale: z.string().optional(),
  quote: z
    .object({
      status: z.string().optional(),
      quotedAt: z.string().optional(),
      expiresAt: z.string().optional(),
      totalPrice: moneySchema.optional(),
    })
    .optional(),
  payment: paymentSchema,
  lineItems: z.array(lineItemSchema).default([]),
});

export type Money = z.output<typeof moneySchema>;
export type Order = z.output<typeof orderSchema>;

export const createdOrderSchema = z.object({ clientSecret: z.string(), order: orderSchema });
export type CreatedOrder = z.output<typeof createdOrderSchema>;

/** Payment statuses with which an order exists but cannot be paid until the payer holds more. */
export const insufficientFundsPaymentStatuses: readonly string[] = [
  'crypto-payer-insufficient-funds',
  'crypto-payer-insufficient-funds-for-gas',
];

export interface PhysicalAddress {
  name: string;
  line1: string;
  line2?: string;
  city: string;
  /** Required by the provider for US addresses. */
  state?: string;
  postalCode: string;
  country: string;
}

export interface CreateOrderInput {
  recipient: { email: string; physicalAddress: PhysicalAddress };
  locale?: string;
  payment: {
    /** The chain to pay on, e.g. `base-sepolia`. */
    method: string;
    currency: 'usdc';
    payerAddress: string;
    receiptEmail?: string;
  };
  lineItems: Array<{
    /** `amazon:<ASIN>`, `amazon:<url>` or `shopify:<url>:<variant>`. */
    productLocator: string;
    /**
     * Passed through untouched. The provider prices items itself; the local stand-in reads
     * `callData.totalPrice` (decimal USDC string) as the price to quote.
     */
    callData?: Record<string, unknown>;
  }>;
}
