import { Inject, Injectable } from '@nestjs/common';
import type { GatewayConfig } from '@shop/config';
import { CartContractClient } from '@shop/chain';
import { OrderEvent, RecordedEvent, systemActor } from '@shop/contracts';
import { cartDecider, orderDecider, userDecider } from '@shop/domain';
import { DeciderRunner } from '@shop/eventstore';
import type { Logger } from '@shop/observability';
import { CommandExecutor } from '@shop/projections';
import { Reaction } from '@shop/reactions';
import { CART_CONTRACT, CONFIG, DECIDER_RUNNER, LOGGER } from '../infrastructure/tokens';

/**
 * With CART_SERVICE=onchain, payment confirmed or delivered calls the contract's checkout once
 * per order and records its digest as the order's tx_hash. A failed call is recorded and logged;
 * the order's status change stands (the spec: the on-chain call is non-fatal).
 */
@Injectable()
export class OnChainCheckoutReaction implements Reaction {
  readonly name = 'onchain-checkout';
  readonly aggregate = 'order' as const;
  readonly eventTypes = ['OrderPaymentConfirmed', 'OrderDelivered'];

  constructor(
    private readonly executor: CommandExecutor,
    @Inject(DECIDER_RUNNER) private readonly runner: DeciderRunner,
    @Inject(CART_CONTRACT) private readonly contract: CartContractClient | null,
    @Inject(CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async handle(recorded: RecordedEvent): Promise<void> {
    if (this.config.CART_SERVICE !== 'onchain') return;
    const event = recorded as RecordedEvent<OrderEvent>;
    const orderId = event.aggregateId;
    const { state: order } = await this.runner.state(orderDecider, 'order', orderId);
    if (order.onChainDigest || order.type !== 'checkout' || !order.userId || !order.cartItemId) return;
    const meta = (step: string) => ({
      actor: systemActor,
      commandId: `onchain-checkout:${step}:${event.id}`,
      causationId: event.id,
    });
    let command;
    try {
      const [{ state: user }, { state: cart }] = await Promise.all([
        this.runner.state(userDecider, 'user', order.userId),
        this.runner.state(cartDecider, 'cart', order.userId),
      ]);
      const objectId = cart.links.get(order.cartItemId);
      if (!this.contract) throw new Error('no cart contract is configured');
      if (!user.suiAddress) throw new Error("the user's Sui wallet is not provisioned");
      if (!objectId) throw new Error('the cart item was never linked to an on-chain object');
      const result = await this.contract.checkout(user.suiAddress, orderId, objectId);
      command = { type: 'RecordOnChainCheckout' as const, txDigest: result.digest };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn({ orderId, err: error }, 'on-chain checkout failed; the order status stands');
      command = { type: 'RecordOnChainCheckoutFailure' as const, reason };
    }
    await this.executor.execute(orderDecider, 'order', orderId, command, meta(command.type));
  }
}
