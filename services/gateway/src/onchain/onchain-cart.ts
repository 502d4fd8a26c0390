import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CartContractClient, ChainAbortError } from '@shop/chain';
import { CartEvent, RecordedEvent, systemActor } from '@shop/contracts';
import { cartDecider, cartItemNotFound, DomainError, objectKeptForOrder, ProductToAdd } from '@shop/domain';
import type { EventStore } from '@shop/eventstore';
import { Aggregates } from '@shop/commands';
import { viewOfItemAdded } from '@shop/read-models';
import { currentCorrelationId } from '@shop/logging';
import { CartItemResponse } from '../cart/cart-item.schema';
import { CartCommandIds, CartService } from '../cart/cart-service';
import { CART_CONTRACT, EVENT_STORE } from '../infrastructure/tokens';
import { domainErrorOf } from './chain-errors';
import { KeyedMutex } from './keyed-mutex';

export const walletNotProvisioned = () =>
  new DomainError('invalid', 'WALLET_NOT_PROVISIONED', 'Your on-chain wallet is not provisioned yet');

type Added = Extract<CartEvent, { type: 'ItemAdded' }>;

/**
 * The cart with CART_SERVICE=onchain: the same rules as the database cart are decided first
 * (so the spec's errors come before any chain call), then the contract is called by the
 * relayer for the user's address, then the decision is recorded as events, with the object the
 * add's own transaction created. A delete is the user's at once: it is recorded, then the object
 * is removed on chain, here if the chain answers, else by OnChainRemovalReaction. An ordered
 * item's object leaves the chain the same way once its order is done with it.
 */
@Injectable()
export class OnChainCart implements CartService {
  private readonly perUser = new KeyedMutex();

  constructor(
    private readonly aggregates: Aggregates,
    @Inject(CART_CONTRACT) private readonly contract: CartContractClient | null,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  async init(userId: string): Promise<{ created: boolean; message: string }> {
    return this.perUser.run(userId, async () => {
      const address = await this.suiAddressOf(userId);
      const { state } = await this.aggregates.cart.state(userId);
      if (state.onChainCartId) return { created: false, message: 'The on-chain cart already exists' };
      let result;
      try {
        result = await this.contractOrFail().initCart(address);
      } catch (error) {
        const existing = await this.contractOrFail()
          .getCart(address)
          .catch(() => null);
        if (!existing) throw domainErrorOf(error);
        await this.record(userId, existing.cartId, 'pre-existing');
        return { created: false, message: 'The on-chain cart already exists' };
      }
      await this.record(userId, result.cartId, result.digest);
      return { created: true, message: 'The on-chain cart was created' };
    });
  }

  async add(userId: string, product: ProductToAdd, ids: CartCommandIds): Promise<CartItemResponse> {
    return this.perUser.run(userId, async () => {
      const address = await this.suiAddressOf(userId);
      const itemId = randomUUID();
      const { state } = await this.aggregates.cart.state(userId);
      const [decided] = cartDecider.decide({ type: 'AddItem', itemId, product }, state) as Added[];
      const item = decided!.data;
      // A removed item's object still on chain would make the contract refuse a re-add or a full cart.
      await this.settle(userId, address).catch((error: unknown) => {
        throw domainErrorOf(error);
      });
      let objectId: string;
      try {
        ({ itemId: objectId } = await this.contractOrFail().addItem(address, {
          productId: item.productId,
          productName: item.productName,
          priceCents: item.price,
          imageUrl: item.image,
          productUrl: item.productUrl,
          size: item.size,
          color: item.color,
          retailer: item.retailer,
        }));
      } catch (error) {
        throw domainErrorOf(error);
      }
      const outcome = await this.aggregates.cart.execute(
        userId,
        { type: 'AddItem', itemId, product, acceptedOnChain: true, objectId },
        { actor: { kind: 'user', id: userId }, ...ids },
      );
      const added =
        (outcome.events.find((e) => e.type === 'ItemAdded') as RecordedEvent<Added> | undefined) ??
        (await this.addedByIndexer(userId, objectId));
      return viewOfItemAdded(added);
    });
  }

  /** The item the indexer listed for this object before the add was recorded. */
  private async addedByIndexer(userId: string, objectId: string): Promise<RecordedEvent<Added>> {
    const { events } = await this.store.load('cart', userId);
    const linked = events.find(
      (e) => e.type === 'ItemLinkedOnChain' && (e.data as { objectId: string }).objectId === objectId,
    );
    const itemId = (linked?.data as { itemId: string } | undefined)?.itemId;
    const added = events.find((e) => e.type === 'ItemAdded' && (e.data as Added['data']).itemId === itemId);
    if (!added) throw new Error(`object ${objectId} is linked to no added item`);
    return added as RecordedEvent<Added>;
  }

  async remove(userId: string, itemId: string, ids: CartCommandIds): Promise<void> {
    await this.perUser.run(userId, async () => {
      const address = await this.suiAddressOf(userId);
      const { state } = await this.aggregates.cart.state(userId);
      if (!state.items.has(itemId)) throw cartItemNotFound();
      await this.aggregates.cart.execute(
        userId,
        { type: 'RemoveItem', itemId, reason: 'removed' },
        { actor: { kind: 'user', id: userId }, ...ids },
      );
      // The delete stands either way; an object the chain could not drop now is dropped by the reaction.
      await this.settle(userId, address).catch(() => undefined);
    });
  }

  /** Removes on chain the objects of items the user removed; the reaction's step. */
  async settleRemovals(userId: string): Promise<void> {
    await this.perUser.run(userId, async () => {
      const { state } = await this.aggregates.user.state(userId);
      if (state.suiAddress) await this.settle(userId, state.suiAddress);
    });
  }

  /**
   * Objects are removed by id, never by product, so a later item of the same product is never
   * taken instead. An object the contract no longer holds was removed already (by another process).
   * An item not linked yet waits for its link (LinkOnChainItem links items out of the cart too);
   * one its order still keeps on chain waits for that order.
   */
  private async settle(userId: string, address: string): Promise<void> {
    const { state } = await this.aggregates.cart.state(userId);
    for (const itemId of state.chainRemovals.keys()) {
      const objectId = state.links.get(itemId);
      if (!objectId || (await this.keptForOrder(state.lastOrders.get(itemId), state.ordered.has(itemId))))
        continue;
      await this.contractOrFail()
        .removeItem(address, objectId)
        .catch((error: unknown) => {
          if (!(error instanceof ChainAbortError && error.abortName === 'ItemNotFound')) throw error;
        });
      await this.aggregates.cart.execute(
        userId,
        { type: 'RemoveOnChainItem', objectId },
        { actor: systemActor, correlationId: currentCorrelationId(), commandId: `chain-removal:${objectId}` },
      );
    }
  }

  private async keptForOrder(orderId: string | undefined, ordered: boolean): Promise<boolean> {
    if (!orderId) return false;
    const { state } = await this.aggregates.order.state(orderId);
    return objectKeptForOrder(state, ordered);
  }

  /** Read from chain state, per the spec. */
  async address(userId: string): Promise<{ cartAddress: string | null; exists: boolean }> {
    const cart = await this.chainCart(userId);
    return { cartAddress: cart?.cartId ?? null, exists: cart !== null };
  }

  async info(userId: string): Promise<{ cartAddress: string; itemCount: number; exists: boolean }> {
    const cart = await this.chainCart(userId);
    return { cartAddress: cart?.cartId ?? '', itemCount: cart?.itemCount ?? 0, exists: cart !== null };
  }

  private async chainCart(userId: string) {
    const { state } = await this.aggregates.user.state(userId);
    if (!state.suiAddress) return null;
    try {
      return await this.contractOrFail().getCart(state.suiAddress);
    } catch (error) {
      throw domainErrorOf(error);
    }
  }

  private async record(userId: string, cartObjectId: string, txDigest: string): Promise<void> {
    await this.aggregates.cart.execute(
      userId,
      { type: 'RecordOnChainCart', cartObjectId, txDigest },
      { actor: { kind: 'user', id: userId }, correlationId: currentCorrelationId() },
    );
  }

  private async suiAddressOf(userId: string): Promise<string> {
    const { state } = await this.aggregates.user.state(userId);
    if (state.walletStatus !== 'active' || !state.suiAddress) throw walletNotProvisioned();
    return state.suiAddress;
  }

  private contractOrFail(): CartContractClient {
    if (!this.contract)
      throw new DomainError('invalid', 'CONTRACT_NOT_CONFIGURED', 'No cart contract is configured');
    return this.contract;
  }
}
