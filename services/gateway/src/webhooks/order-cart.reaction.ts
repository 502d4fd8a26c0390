import { Injectable } from '@nestjs/common';
import { OrderEvent, RecordedEvent, systemActor } from '@shop/contracts';
import { CartCommand, DomainError } from '@shop/domain';
import { Aggregates } from '@shop/commands';
import { Reaction } from '@shop/reactions';

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

  constructor(private readonly aggregates: Aggregates) {}

  async handle(recorded: RecordedEvent): Promise<void> {
    const event = recorded as RecordedEvent<OrderEvent>;
    const { state: order } = await this.aggregates.order.state(event.aggregateId);
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
      await this.aggregates.cart
        .execute(order.userId, command, {
          actor: systemActor,
          commandId: `order-cart:${event.id}:${index}`,
          causationId: event.id,
          correlationId: event.correlationId,
        })
        // The shopper may have removed the item already: nothing left to take out.
        .catch((error: unknown) => {
          if (!(error instanceof DomainError && error.code === 'CartItemNotFoundError')) throw error;
        });
    }
  }
}
