import { randomUUID } from 'node:crypto';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CartEvent, RecordedEvent } from '@shop/contracts';
import { Inject } from '@nestjs/common';
import type { GatewayConfig } from '@shop/config';
import { Aggregates } from '@shop/commands';
import { CONFIG } from '../infrastructure/tokens';
import { OnChainCart } from '../onchain/onchain-cart';
import { AddCartItemBody, CartItemResponse } from './cart-item.schema';

export class AddCartItemCommand extends Command<CartItemResponse> {
  constructor(
    readonly userId: string,
    readonly product: AddCartItemBody,
    readonly commandId?: string,
  ) {
    super();
  }
}

/** Answers from the stored event, so a retried request gets the item it created the first time. */
@CommandHandler(AddCartItemCommand)
export class AddCartItemHandler implements ICommandHandler<AddCartItemCommand> {
  constructor(
    private readonly aggregates: Aggregates,
    private readonly onChain: OnChainCart,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  async execute({ userId, product, commandId }: AddCartItemCommand): Promise<CartItemResponse> {
    if (this.config.CART_SERVICE === 'onchain') return this.onChain.add(userId, product, commandId);
    const outcome = await this.aggregates.cart.execute(
      userId,
      { type: 'AddItem', itemId: randomUUID(), product },
      { actor: { kind: 'user', id: userId }, commandId },
    );
    const added = outcome.events.find((e) => e.type === 'ItemAdded') as RecordedEvent<
      Extract<CartEvent, { type: 'ItemAdded' }>
    >;
    const { itemId, ...item } = added.data;
    return { id: itemId, userId, ...item, createdAt: new Date(added.occurredAt).toISOString() };
  }
}
