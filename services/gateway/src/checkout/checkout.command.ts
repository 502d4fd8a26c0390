import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { GatewayConfig } from '@shop/config';
import {
  CartItem,
  cartItemNotFound,
  CheckoutReservation,
  checkoutInProgress,
  checkoutMissingAddress,
  checkoutNoWallet,
  checkoutOrderCreation,
  checkoutPayment,
  insufficientFunds,
  OrderCreationFailure,
  OrderState,
  resumesNow,
  UserState,
} from '@shop/domain';
import { Aggregates } from '@shop/commands';
import { ProviderClient, ProviderError } from '@shop/provider';
import { currentCorrelationId } from '@shop/logging';
import { providerAnswerOf } from '../infrastructure/provider-answer';
import { CONFIG, PROVIDER } from '../infrastructure/tokens';
import { missingAddressPart, providerOrderInput } from './provider-order-input';
import { centsToMicroUnits, toMicroUnits } from './usdc-balance';

export interface CheckoutResult {
  orderId: string;
  providerOrderId: string;
  phase: string;
  serializedTransaction: string;
  walletAddress: string;
}

export class CheckoutCommand extends Command<CheckoutResult> {
  constructor(
    readonly userId: string,
    readonly cartItemId: string,
    readonly commandId?: string,
  ) {
    super();
  }
}

/** Released attempts followed under one Idempotency-Key before the request answers 409. */
const MAX_RETRIED_ATTEMPTS = 50;

/**
 * Checks out one cart item: the spec's preconditions in order, then the item is reserved for
 * a new order id on the cart (one open checkout per item, decided by the cart decider), the
 * provider order is created under that id as its idempotency key, and `OrderCreated` is
 * appended. A repeated checkout finds the reservation and answers with the same order. An
 * answer from the provider that is neither an order nor a refusal leaves the reservation in
 * doubt: the next checkout creates the order again under the same key, so the provider answers
 * with the order it may already have made instead of making a second one.
 */
@CommandHandler(CheckoutCommand)
export class CheckoutHandler implements ICommandHandler<CheckoutCommand> {
  constructor(
    private readonly aggregates: Aggregates,
    @Inject(PROVIDER) private readonly provider: ProviderClient | null,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  async execute({ userId, cartItemId, commandId }: CheckoutCommand): Promise<CheckoutResult> {
    const { state: cart } = await this.aggregates.cart.state(userId);
    const item = cart.items.get(cartItemId);
    if (!item) throw cartItemNotFound();
    const { state: user } = await this.aggregates.user.state(userId);
    if (user.walletStatus !== 'active' || !user.evmAddress) throw checkoutNoWallet();
    const missing = missingAddressPart(user.shippingAddress) ?? (user.email ? null : 'email address');
    if (missing) throw checkoutMissingAddress(missing);
    const provider = this.providerOrFail();

    const open = cart.checkouts.get(cartItemId);
    if (open) return this.continueOpenCheckout(open, userId, user, item, provider);

    await this.ensureBalance(provider, user.evmAddress, item.price);
    return this.reserveAndPlace(userId, user, item, provider, commandId);
  }

  /**
   * Reserves the item for a new order id and places the order. A repeated Idempotency-Key finds
   * the reservation its first attempt made: an order placed under it is that attempt's outcome;
   * a reservation released since (the provider refused the order) is followed by a new attempt
   * under a key derived from the released one, so concurrent repeats still share one attempt.
   */
  private async reserveAndPlace(
    userId: string,
    user: UserState,
    item: CartItem,
    provider: ProviderClient,
    commandId: string | undefined,
  ): Promise<CheckoutResult> {
    let attemptId = commandId;
    for (let attempt = 0; attempt < MAX_RETRIED_ATTEMPTS; attempt++) {
      const orderId = randomUUID();
      const reserved = await this.aggregates.cart.execute(
        userId,
        { type: 'BeginCheckout', itemId: item.itemId, orderId, now: Date.now() },
        { actor: { kind: 'user', id: userId }, correlationId: currentCorrelationId(), commandId: attemptId },
      );
      const open = reserved.state.checkouts.get(item.itemId);
      if (reserved.appended) return this.placeOrder(orderId, userId, user, item, provider);
      const started = reserved.events.find((e) => e.type === 'ItemCheckoutStarted');
      // Nothing recorded under this key: another checkout of the item holds the reservation.
      if (!started) return this.continueOpenCheckout(open!, userId, user, item, provider);
      const earlier = (started.data as { orderId: string }).orderId;
      if (open?.orderId === earlier) return this.continueOpenCheckout(open, userId, user, item, provider);
      const { state: order } = await this.aggregates.order.state(earlier);
      if (order.exists) return resultOf(earlier, order);
      if (open) return this.continueOpenCheckout(open, userId, user, item, provider);
      attemptId = `${commandId}:after:${earlier}`;
    }
    throw checkoutInProgress();
  }

  private async continueOpenCheckout(
    reservation: CheckoutReservation,
    userId: string,
    user: UserState,
    item: CartItem,
    provider: ProviderClient,
  ): Promise<CheckoutResult> {
    const { state: order } = await this.aggregates.order.state(reservation.orderId);
    if (order.exists) return resultOf(reservation.orderId, order);
    if (!resumesNow(reservation, Date.now())) throw checkoutInProgress();
    return this.placeOrder(reservation.orderId, userId, user, item, provider);
  }

  private async placeOrder(
    orderId: string,
    userId: string,
    user: UserState,
    item: CartItem,
    provider: ProviderClient,
  ): Promise<CheckoutResult> {
    const walletAddress = user.evmAddress!;
    let created;
    try {
      created = await provider.createOrder(
        providerOrderInput({
          email: user.email!,
          address: user.shippingAddress!,
          item,
          payerAddress: walletAddress,
          chain: this.config.PROVIDER_CHAIN,
          includePrice: this.config.NODE_ENV !== 'production',
        }),
        { idempotencyKey: orderId },
      );
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      await this.fail(userId, item.itemId, orderId, failureOf(error), detail);
      if (error instanceof ProviderError && error.kind === 'insufficient_funds') throw insufficientFunds();
      throw checkoutOrderCreation(detail);
    }
    const { order } = created;
    const serializedTransaction = order.payment.preparation?.serializedTransaction;
    if (!serializedTransaction) {
      await this.fail(
        userId,
        item.itemId,
        orderId,
        { answer: 'unpayable' },
        'the provider prepared no payment',
      );
      throw checkoutPayment(`payment status ${order.payment.status}`);
    }
    const { itemId: _itemId, ...snapshot } = item;
    const outcome = await this.aggregates.order.execute(
      orderId,
      {
        type: 'CreateOrder',
        userId,
        cartItemId: item.itemId,
        providerOrderId: order.orderId,
        phase: order.phase,
        item: snapshot,
        payment: { status: order.payment.status, currency: order.payment.currency ?? 'usdc' },
        quote: order.quote?.totalPrice ? { totalPrice: order.quote.totalPrice } : null,
        walletAddress,
        serializedTransaction,
      },
      {
        actor: { kind: 'user', id: userId },
        correlationId: currentCorrelationId(),
        commandId: `create-order:${orderId}`,
      },
    );
    return resultOf(orderId, outcome.state);
  }

  private async ensureBalance(
    provider: ProviderClient,
    evmAddress: string,
    priceCents: number,
  ): Promise<void> {
    let balances;
    try {
      balances = await provider.getBalances(evmAddress, {
        tokens: ['usdc'],
        chains: [this.config.PROVIDER_CHAIN],
      });
    } catch (error) {
      throw checkoutOrderCreation(
        `balance unavailable: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const usdc = balances.find((b) => b.symbol.toLowerCase() === 'usdc');
    if (!usdc || toMicroUnits(usdc.amount) < centsToMicroUnits(priceCents)) throw insufficientFunds();
  }

  private async fail(
    userId: string,
    itemId: string,
    orderId: string,
    failure: OrderCreationFailure,
    reason: string,
  ): Promise<void> {
    await this.aggregates.cart.execute(
      userId,
      { type: 'FailCheckout', itemId, orderId, failure, reason },
      { actor: { kind: 'system', id: 'checkout' }, correlationId: currentCorrelationId() },
    );
  }

  private providerOrFail(): ProviderClient {
    if (!this.provider) throw checkoutOrderCreation('the payment provider is not configured');
    return this.provider;
  }
}

/** The provider's answer in the terms the cart decider releases or keeps a reservation by. */
function failureOf(error: unknown): OrderCreationFailure {
  if (error instanceof ProviderError && error.kind === 'insufficient_funds') return { answer: 'unpayable' };
  return providerAnswerOf(error);
}

function resultOf(orderId: string, order: OrderState): CheckoutResult {
  return {
    orderId,
    providerOrderId: order.providerOrderId!,
    phase: order.phase!,
    serializedTransaction: order.serializedTransaction!,
    walletAddress: order.walletAddress!,
  };
}
