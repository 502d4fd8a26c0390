import { Inject, Injectable } from '@nestjs/common';
import type { GatewayConfig } from '@shop/config';
import { CartContractClient, ChainExecutionError, ChainInputError, ContractCallResult } from '@shop/chain';
import { OrderEvent, RecordedEvent, systemActor } from '@shop/contracts';
import { OrderCommand } from '@shop/domain';
import type { Logger } from '@shop/logging';
import { Aggregates } from '@shop/commands';
import { Reaction } from '@shop/reactions';
import { CART_CONTRACT, CONFIG, LOGGER } from '../infrastructure/tokens';
import { KeyedMutex } from './keyed-mutex';
import { OnChainCart } from './onchain-cart';
import { PendingOnChainCheckouts } from './pending-onchain-checkouts';

/** Not an outcome: the step is retried by the runner (with backoff, then from parking). */
class NotYetCheckedOut extends Error {}

/**
 * With CART_SERVICE=onchain, payment confirmed or delivered calls the contract's checkout once
 * per order and records its digest as the order's tx_hash. It is a durable step: while the item's
 * object is not known yet, or the chain cannot be reached, it throws and is retried; only the
 * chain's own refusal is recorded as a failure (the spec: the order's status stands). Each call's
 * digest is recorded before it is sent and looked up before another is sent, so the contract sees
 * one checkout per order even when an answer is lost or the process dies mid-call.
 */
@Injectable()
export class OnChainCheckoutReaction implements Reaction {
  readonly name = 'onchain-checkout';
  readonly aggregate = 'order' as const;
  readonly eventTypes = ['OrderPaymentConfirmed', 'OrderDelivered'];
  // Payment and delivery of one order may be handled at once; one call per order at a time.
  private readonly perOrder = new KeyedMutex();

  constructor(
    private readonly aggregates: Aggregates,
    @Inject(CART_CONTRACT) private readonly contract: CartContractClient | null,
    @Inject(CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly pending: PendingOnChainCheckouts,
    private readonly cart: OnChainCart,
  ) {}

  async handle(recorded: RecordedEvent): Promise<void> {
    if (this.config.CART_SERVICE !== 'onchain') return;
    const orderId = recorded.aggregateId;
    const userId = await this.perOrder.run(orderId, () =>
      this.checkOut(recorded as RecordedEvent<OrderEvent>),
    );
    // An item the user removed during its checkout leaves the chain now that the order is done with it.
    if (userId) await this.cart.settleRemovals(userId);
  }

  /** The order's user once the contract checkout has an outcome, null for an order of none. */
  private async checkOut(event: RecordedEvent<OrderEvent>): Promise<string | null> {
    const orderId = event.aggregateId;
    const { state: order } = await this.aggregates.order.state(orderId);
    if (order.type !== 'checkout' || !order.userId || !order.cartItemId) return null;
    if (order.onChainDigest) {
      this.pending.end(orderId);
      return order.userId;
    }
    this.pending.begin(orderId);
    const record = async (command: OrderCommand) => {
      await this.aggregates.order.execute(orderId, command, {
        actor: systemActor,
        // A digest is its own key: a resent call with other bytes is a new command.
        commandId:
          command.type === 'RecordOnChainCheckoutSubmitted'
            ? `onchain-checkout:submitted:${command.txDigest}`
            : `onchain-checkout:${command.type}:${event.id}:${order.onChainSubmitted.length}`,
        causationId: event.id,
        correlationId: event.correlationId,
      });
    };
    let result: ContractCallResult;
    try {
      result = await this.call(orderId, order.userId, order.cartItemId, order.onChainSubmitted, record);
    } catch (error) {
      if (!finalRefusal(error)) {
        this.logger.warn({ orderId, err: error }, 'on-chain checkout not done yet; retrying');
        throw error;
      }
      this.logger.warn(
        { orderId, err: error },
        'on-chain checkout refused by the chain; the order status stands',
      );
      await record({ type: 'RecordOnChainCheckoutFailure', reason: (error as Error).message });
      this.pending.end(orderId);
      return order.userId;
    }
    await record({ type: 'RecordOnChainCheckout', txDigest: result.digest });
    this.pending.end(orderId);
    return order.userId;
  }

  private async call(
    orderId: string,
    userId: string,
    cartItemId: string,
    submitted: readonly string[],
    record: (command: OrderCommand) => Promise<void>,
  ): Promise<ContractCallResult> {
    const contract = this.contract;
    if (!contract) throw new ChainInputError('no cart contract is configured');
    for (const digest of submitted) {
      const landed = await contract.transactionOutcome(digest);
      if (landed) return landed;
    }
    const [{ state: user }, { state: cart }] = await Promise.all([
      this.aggregates.user.state(userId),
      this.aggregates.cart.state(userId),
    ]);
    if (!user.suiAddress) throw new ChainInputError("the user's Sui wallet is not provisioned");
    const objectId = cart.links.get(cartItemId);
    if (!objectId) throw new NotYetCheckedOut('the cart item is not linked to its on-chain object yet');
    return contract.checkout(user.suiAddress, orderId, objectId, (digest) =>
      record({ type: 'RecordOnChainCheckoutSubmitted', txDigest: digest }),
    );
  }
}

/** The chain's own answer (an abort, a failed execution) or a call it could never accept. */
function finalRefusal(error: unknown): boolean {
  return error instanceof ChainExecutionError || error instanceof ChainInputError;
}
