import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Hex, isAddress, keccak256, toHex } from 'viem';
import { z } from 'zod';
import { chainOrReject, SandboxChain } from './chains';
import { preparePaymentTransaction } from './payment-transaction';
import { ProviderApiError } from './provider-api-error';
import { toBaseUnits, usdcAmount, usdcMoney } from './usdc';
import { WalletRegistry } from './wallet-registry';

const physicalAddress = z
  .object({
    name: z.string().min(1),
    line1: z.string().min(1),
    line2: z.string().optional(),
    city: z.string().min(1),
    state: z.string().optional(),
    postalCode: z.string().min(1),
    country: z.literal('US', 'only US addresses are supported'),
  })
  .refine((address) => address.state, { message: 'state is required for US addresses', path: ['state'] });

export const createOrderBody = z.object({
  recipient: z.object({ email: z.email(), physicalAddress: physicalAddress.optional() }),
  locale: z.string().default('en-US'),
  payment: z.object({
    method: z.string(),
    currency: z.literal('usdc', 'the sandbox only takes usdc'),
    payerAddress: z
      .string()
      .refine((v) => isAddress(v, { strict: false }), 'must be an EVM address')
      .optional(),
    receiptEmail: z.email().optional(),
  }),
  lineItems: z
    .array(
      z.object({
        productLocator: z
          .string()
          .regex(/^(amazon|shopify):.+/, 'amazon:<asin|url> or shopify:<url>:<variant>'),
        // The real provider looks prices up itself; the stand-in has no catalogue, so the caller may name one.
        callData: z.looseObject({ totalPrice: usdcAmount.optional() }).optional(),
      }),
    )
    .min(1),
});
export type CreateOrderBody = z.output<typeof createOrderBody>;

/** Where an order stands inside the stand-in; the wire phase and statuses are derived from it. */
type Stage = 'unpaid' | 'payment-failed' | 'in-delivery' | 'delivered' | 'delivery-failed';

interface OrderRecord {
  orderId: string;
  createdAt: Date;
  body: CreateOrderBody;
  chain: SandboxChain;
  prices: bigint[];
  total: bigint;
  stage: Stage;
  paymentTxId?: Hex;
  deliveryTxId?: Hex;
  refundTxId?: Hex;
  failureMessage?: string;
  /** Approved and paying on the stand-in's schedule: a second approval is refused. */
  approved?: boolean;
}

export interface OrderWire {
  orderId: string;
  phase: string;
  locale: string;
  lineItems: unknown[];
  quote: {
    status: string;
    quotedAt: string;
    expiresAt: string;
    totalPrice: { amount: string; currency: string };
  };
  payment: { status: string; method: string; currency: 'usdc'; [field: string]: unknown };
}

export interface OrderEvent {
  type: string;
  order: OrderWire;
}

export type WebhookOrder = 'in-order' | 'reversed';
export type FailureStage = 'payment' | 'delivery';

const quoteLifetimeMs = 60 * 60 * 1000;

export class OrderBook {
  private readonly orders = new Map<string, OrderRecord>();
  private readonly timers = new Set<NodeJS.Timeout>();

  /**
   * `stageDelayMs` spaces payment, shipping and delivery after an approval, as the real provider
   * takes its time; 0 runs all three at once.
   */
  constructor(
    private readonly wallets: WalletRegistry,
    private readonly publish: (events: OrderEvent[]) => void,
    private readonly stageDelayMs = 0,
  ) {}

  /** Drops the stages still scheduled. */
  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  create(body: CreateOrderBody): { clientSecret: string; order: OrderWire } {
    const chain = chainOrReject(body.payment.method);
    const prices = body.lineItems.map((item) =>
      item.callData?.totalPrice ? toBaseUnits(item.callData.totalPrice) : fallbackPrice(item.productLocator),
    );
    const record: OrderRecord = {
      orderId: randomUUID(),
      createdAt: new Date(),
      body,
      chain,
      prices,
      total: prices.reduce((sum, price) => sum + price, 0n),
      stage: 'unpaid',
    };
    this.orders.set(record.orderId, record);
    const order = this.toWire(record);
    this.publish([{ type: 'orders.quote.created', order }]);
    return { clientSecret: `${record.orderId}_secret_${randomBytes(12).toString('hex')}`, order };
  }

  /** Read fresh each time: funding the payer later turns an underfunded order payable, as at the provider. */
  get(orderId: string): OrderWire {
    return this.toWire(this.require(orderId));
  }

  /** What the user's one-time-code approval sets off at the provider: payment, then delivery. */
  approve(orderId: string, webhookOrder: WebhookOrder = 'in-order'): OrderWire {
    const record = this.require(orderId);
    if (this.stageDelayMs > 0) return this.approveOnSchedule(record);
    const paid = this.pay(record);
    record.stage = 'delivered';
    record.deliveryTxId = txId(record, 'delivery');
    const delivered = this.toWire(record);
    const events: OrderEvent[] = [
      { type: 'orders.payment.succeeded', order: paid },
      { type: 'orders.delivery.initiated', order: paid },
      { type: 'orders.delivery.completed', order: delivered },
    ];
    this.publish(webhookOrder === 'reversed' ? events.reverse() : events);
    return delivered;
  }

  /**
   * Checks now that the order is payable, then pays, ships and delivers one stage delay apart,
   * sending each stage's webhook as it happens. Funds spent elsewhere meanwhile fail the payment.
   */
  private approveOnSchedule(record: OrderRecord): OrderWire {
    if (record.approved) throw this.conflict(record, 'is already approved');
    const status = record.stage === 'unpaid' ? this.unpaidStatus(record) : undefined;
    if (status !== 'awaiting-payment')
      throw this.conflict(record, `is not payable (${status ?? record.stage})`);
    record.approved = true;
    this.after(1, () => {
      try {
        this.publish([{ type: 'orders.payment.succeeded', order: this.pay(record) }]);
      } catch (error) {
        this.fail(record.orderId, 'payment', (error as Error).message);
      }
    });
    this.after(2, () => {
      if (record.stage === 'in-delivery')
        this.publish([{ type: 'orders.delivery.initiated', order: this.toWire(record) }]);
    });
    this.after(3, () => {
      if (record.stage !== 'in-delivery') return;
      record.stage = 'delivered';
      record.deliveryTxId = txId(record, 'delivery');
      this.publish([{ type: 'orders.delivery.completed', order: this.toWire(record) }]);
    });
    return this.toWire(record);
  }

  private after(stages: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, stages * this.stageDelayMs);
    this.timers.add(timer);
  }

  /**
   * A payment failure leaves the order unpaid; a delivery failure happens after payment, and the
   * provider refunds failed items on its own, so the payer gets the money back.
   */
  fail(orderId: string, stage: FailureStage, reason?: string): OrderWire {
    const record = this.require(orderId);
    if (stage === 'payment') {
      if (record.stage !== 'unpaid') throw this.conflict(record, 'cannot fail its payment');
      record.stage = 'payment-failed';
      record.failureMessage = reason ?? 'The payment transaction reverted';
      const failed = this.toWire(record);
      this.publish([{ type: 'orders.payment.failed', order: failed }]);
      return failed;
    }
    const paid = this.pay(record);
    const payer = this.payerOf(record);
    this.wallets.credit(payer, record.chain.name, record.total);
    record.stage = 'delivery-failed';
    record.refundTxId = txId(record, 'refund');
    record.failureMessage = reason ?? 'The merchant could not fulfil the item';
    const failed = this.toWire(record);
    this.publish([
      { type: 'orders.payment.succeeded', order: paid },
      { type: 'orders.delivery.initiated', order: paid },
      { type: 'orders.delivery.failed', order: failed },
    ]);
    return failed;
  }

  private pay(record: OrderRecord): OrderWire {
    const status = record.stage === 'unpaid' ? this.unpaidStatus(record) : undefined;
    if (status !== 'awaiting-payment')
      throw this.conflict(record, `is not payable (${status ?? record.stage})`);
    this.wallets.debit(this.payerOf(record), record.chain.name, record.total);
    record.stage = 'in-delivery';
    record.paymentTxId = txId(record, 'payment');
    return this.toWire(record);
  }

  private unpaidStatus(record: OrderRecord): string {
    const { physicalAddress } = record.body.recipient;
    const { payerAddress } = record.body.payment;
    if (!physicalAddress) return 'requires-quote';
    if (!payerAddress) return 'requires-crypto-payer-address';
    if (this.wallets.balanceOf(payerAddress, record.chain.name) < record.total)
      return 'crypto-payer-insufficient-funds';
    return 'awaiting-payment';
  }

  private toWire(record: OrderRecord): OrderWire {
    const unpaid = record.stage === 'unpaid' ? this.unpaidStatus(record) : undefined;
    const total = usdcMoney(record.total);
    return {
      orderId: record.orderId,
      phase: phaseOf(record.stage, unpaid),
      locale: record.body.locale,
      lineItems: record.prices.map((price) => this.lineItemWire(record, price)),
      quote: {
        status: record.body.recipient.physicalAddress ? 'valid' : 'requires-physical-address',
        quotedAt: record.createdAt.toISOString(),
        expiresAt: new Date(record.createdAt.getTime() + quoteLifetimeMs).toISOString(),
        totalPrice: total,
      },
      payment: {
        status: unpaid ?? (record.stage === 'payment-failed' ? 'failed' : 'completed'),
        method: record.chain.name,
        currency: 'usdc',
        ...(unpaid === 'awaiting-payment' && {
          preparation: {
            chain: record.chain.name,
            payerAddress: record.body.payment.payerAddress,
            serializedTransaction: preparePaymentTransaction(record.chain, record.total),
          },
        }),
        ...(record.paymentTxId && { received: { txId: record.paymentTxId, ...total } }),
        ...(record.refundTxId && { refunded: { txId: record.refundTxId, ...total } }),
        ...(record.stage === 'payment-failed' && {
          failureReason: { code: 'payment-failed', message: record.failureMessage },
        }),
      },
    };
  }

  private lineItemWire(record: OrderRecord, price: bigint): unknown {
    const { email } = record.body.recipient;
    const deliveryStatus = {
      unpaid: 'awaiting-payment',
      'payment-failed': 'awaiting-payment',
      'in-delivery': 'in-progress',
      delivered: 'completed',
      'delivery-failed': 'failed',
    }[record.stage];
    return {
      chain: record.chain.name,
      quantity: 1,
      quote: {
        status: 'valid',
        charges: { unit: usdcMoney(price), salesTax: usdcMoney(0n), shipping: usdcMoney(0n) },
        totalPrice: usdcMoney(price),
      },
      delivery: {
        status: deliveryStatus,
        recipient: { locator: `email:${email}:${record.chain.name}`, email },
        ...(record.deliveryTxId && { txId: record.deliveryTxId }),
      },
    };
  }

  private payerOf(record: OrderRecord): string {
    const payer = record.body.payment.payerAddress;
    if (!payer) throw this.conflict(record, 'has no payer');
    return payer;
  }

  private require(orderId: string): OrderRecord {
    const record = this.orders.get(orderId);
    if (!record) throw new ProviderApiError(404, `Order ${orderId} not found`, 'order-not-found');
    return record;
  }

  private conflict(record: OrderRecord, problem: string): ProviderApiError {
    return new ProviderApiError(409, `Order ${record.orderId} ${problem}`, 'invalid-order-state');
  }
}

function phaseOf(stage: Stage, unpaidStatus: string | undefined): string {
  if (stage === 'unpaid') return unpaidStatus === 'requires-quote' ? 'quote' : 'payment';
  if (stage === 'payment-failed') return 'payment';
  if (stage === 'in-delivery') return 'delivery';
  return 'completed';
}

/** 5.00 to 104.99 USDC, fixed per product so repeated runs quote the same price. */
function fallbackPrice(productLocator: string): bigint {
  const cents = 500 + (createHash('sha256').update(productLocator).digest().readUInt32BE(0) % 10_000);
  return BigInt(cents) * 10_000n;
}

function txId(record: OrderRecord, purpose: string): Hex {
  return keccak256(toHex(`${record.orderId}:${purpose}`));
}
