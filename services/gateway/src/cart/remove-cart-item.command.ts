import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Inject } from '@nestjs/common';
import type { GatewayConfig } from '@shop/config';
import { Aggregates } from '@shop/commands';
import { CONFIG } from '../infrastructure/tokens';
import { OnChainCart } from '../onchain/onchain-cart';

export class RemoveCartItemCommand extends Command<void> {
  constructor(
    readonly userId: string,
    readonly itemId: string,
  ) {
    super();
  }
}

/** The cart is the user's own subject, so another user's item id is simply not found in it. */
@CommandHandler(RemoveCartItemCommand)
export class RemoveCartItemHandler implements ICommandHandler<RemoveCartItemCommand> {
  constructor(
    private readonly aggregates: Aggregates,
    private readonly onChain: OnChainCart,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  async execute({ userId, itemId }: RemoveCartItemCommand): Promise<void> {
    if (this.config.CART_SERVICE === 'onchain') return this.onChain.remove(userId, itemId);
    await this.aggregates.cart.execute(
      userId,
      { type: 'RemoveItem', itemId, reason: 'removed' },
      { actor: { kind: 'user', id: userId } },
    );
  }
}
