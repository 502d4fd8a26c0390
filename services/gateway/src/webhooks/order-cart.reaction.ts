import { Inject, Injectable } from '@nestjs/common';
import { OrderEvent, RecordedEvent, systemActor } from '@shop/contracts';
import { cartDecider, CartCommand, DomainError, orderDecider } from '@shop/domain';
import { DeciderRunner } from '@shop/eventstore';
import { CommandExecutor } from '@shop/projections';
import { Reaction } from '@shop/reactions';
import { DECIDER_RUNNER } from '../infrastructure/tokens';

/**
 * Keeps the cart in step with its orders: the ordered item leaves the cart when payment
 * succeeds and comes back if payment fails; the item's checkout ends with its order. Webhooks
 * arrive in any order and a late payment event changes nothing, so a delivery started or
 * completed also takes the item out (a no-op when payment already did).
 */
@Injectable()
export class OrderCartReaction implements Reaction {
  readonly name = 'order-cart';
  readonly aggregate = 'order' as const;
  readonly eventTypes = ['OrderPaymentConfirmed', 'OrderDeliveryStarted', 'OrderDelivered', 'OrderCancelled'];

  constructor(
    private readonly executor: CommandExecutor,
    @Inject(DECIDER_RUNNER) private readonly runner: DeciderRunner,
  ) {}

  async handle(recorded: RecordedEvent): Promise<void> {
    const event = recorded as RecordedEvent<OrderEvent>;
    const { state: order } = await this.runner.state(orderDecider, 'order', event.aggregateId);
    if (order.type !== 'checkout' || !order.userId || !order.cartItemId) return;
    const itemId = order.cartItemId;
    const release: CartCommand = {
      type: 'ReleaseCheckout',
      itemId,
      orderId: event.aggregateId,
      reason: event.type,
    };
    const ordered: CartCommand = { type: 'RemoveItem', itemId, reason: 'ordered' };
    const steps: CartCommand[] =
      event.type === 'OrderPaymentConfirmed' || event.type === 'OrderDeliveryStarted'
        ? [ordered]
        : event.type === 'OrderDelivered'
          ? [ordered, release]
          : event.type === 'OrderCancelled' && event.data.stage === 'payment'
            ? [release, { type: 'RestoreItem', itemId }]
            : [release];
    for (const [index, command] of steps.entries()) {
      await this.executor
        .execute(cartDecider, 'cart', order.userId, command, {
          actor: systemActor,
          commandId: `order-cart:${event.id}:${index}`,
          causationId: event.id,
        })
        // The shopper may have removed the item already: nothing left to take out.
        .catch((error: unknown) => {
          if (!(error instanceof DomainError && error.code === 'CartItemNotFoundError')) throw error;
        });
    }
  }
}
