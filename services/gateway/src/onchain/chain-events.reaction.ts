import { Inject, Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { normalizeAddress } from '@shop/chain';
import { ChainEvent, RecordedEvent } from '@shop/contracts';
import { CartCommand, DomainError, nameBasedUuid } from '@shop/domain';
import { Aggregates } from '@shop/commands';
import { Reaction } from '@shop/reactions';
import type { ReadModelDatabase } from '@shop/read-models';
import { READ_DB } from '../infrastructure/tokens';

const chainItemNamespace = '5e0a9c1d-7b3f-4a26-8d41-c2f9e6b0a713';

/**
 * Turns chain events the indexer recorded into the aggregates they concern: a cart item is
 * linked to its on-chain object (or added, when it was put there outside this gateway), a
 * removal on chain removes it here, an on-chain order records the order's digest. An event
 * whose user is unknown here is retried and then reported by the runner; it stays recorded.
 */
@Injectable()
export class ChainEventsReaction implements Reaction {
  readonly name = 'chain-events';
  readonly aggregate = 'chain' as const;
  readonly eventTypes = ['ChainEventObserved'];

  constructor(
    private readonly aggregates: Aggregates,
    @Inject(READ_DB) private readonly db: Kysely<ReadModelDatabase>,
  ) {}

  async handle(recorded: RecordedEvent): Promise<void> {
    const { data } = recorded as RecordedEvent<ChainEvent>;
    const meta = {
      actor: { kind: 'chain' as const, id: data.txDigest },
      commandId: `chain-reaction:${recorded.id}`,
      causationId: recorded.id,
      correlationId: recorded.correlationId,
    };
    if (data.kind === 'OrderCreated' && data.orderId) {
      await this.aggregates.order
        .execute(data.orderId, { type: 'RecordOnChainCheckout', txDigest: data.txDigest }, meta)
        .catch((error: unknown) => {
          // An on-chain order id that is not one of ours: recorded, nothing to update.
          if (!(error instanceof DomainError && error.code === 'OrderNotFoundError')) throw error;
        });
      return;
    }
    if (!data.user || (data.kind !== 'CartCreated' && !data.itemId)) return;
    const userId = await this.userOf(data.user);
    let command: CartCommand;
    if (data.kind === 'CartCreated')
      command = { type: 'RecordOnChainCart', cartObjectId: data.cartId!, txDigest: data.txDigest };
    else if (data.kind === 'CartItemAdded' && data.product) {
      command = {
        type: 'LinkOnChainItem',
        objectId: data.itemId!,
        fallbackItemId: nameBasedUuid(chainItemNamespace, data.itemId!),
        product: data.product,
      };
    } else if (data.kind === 'CartItemRemoved')
      command = { type: 'RemoveOnChainItem', objectId: data.itemId! };
    else return;
    await this.aggregates.cart.execute(userId, command, meta);
  }

  private async userOf(address: string): Promise<string> {
    const row = await this.db
      .selectFrom('users')
      .select('user_id')
      .where('sui_address', '=', normalizeAddress(address))
      .executeTakeFirst();
    if (!row) throw new Error(`no user with the Sui address ${address} (yet)`);
    return row.user_id;
  }
}
