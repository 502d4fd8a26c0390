import { Injectable } from '@nestjs/common';
import { RecordedEvent } from '@shop/contracts';
import { Reaction } from '@shop/reactions';
import { OnChainCart } from './onchain-cart';

/**
 * With CART_SERVICE=onchain, takes the objects of items the user removed or ordered out of the
 * contract's cart: after the delete (when the chain did not answer it at once), once the item's
 * object is linked, or once its order no longer keeps it (cancelled or delivered here; checked out
 * on chain: see OnChainCheckoutReaction). A failure is retried by the runner with backoff; each
 * removal is recorded once.
 */
@Injectable()
export class OnChainRemovalReaction implements Reaction {
  readonly name = 'onchain-removal';
  readonly aggregate = 'cart' as const;
  readonly eventTypes = ['ItemRemoved', 'ItemLinkedOnChain', 'ItemCheckoutReleased'];

  constructor(private readonly cart: OnChainCart) {}

  async handle(recorded: RecordedEvent): Promise<void> {
    await this.cart.settleRemovals(recorded.aggregateId);
  }
}
