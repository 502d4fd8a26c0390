import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CartContractClient } from '@shop/chain';
import { CartEvent, RecordedEvent } from '@shop/contracts';
import { cartDecider, cartItemNotFound, DomainError, ProductToAdd, userDecider } from '@shop/domain';
import { DeciderRunner } from '@shop/eventstore';
import { CommandExecutor } from '@shop/projections';
import { CartItemResponse } from '../cart/cart-item.schema';
import { CART_CONTRACT, DECIDER_RUNNER } from '../infrastructure/tokens';
import { domainErrorOf } from './chain-errors';
import { KeyedMutex } from './keyed-mutex';

export const walletNotProvisioned = () =>
  new DomainError('invalid', 'WALLET_NOT_PROVISIONED', 'Your on-chain wallet is not provisioned yet');

type Added = Extract<CartEvent, { type: 'ItemAdded' }>;

/**
 * The cart with CART_SERVICE=onchain: the same rules as the database cart are decided first
 * (so the spec's errors come before any chain call), then the contract is called by the
 * relayer for the user's address, then the decision is recorded as events. The indexer later
 * links each item to its on-chain object.
 */
@Injectable()
export class OnChainCart {
  private readonly perUser = new KeyedMutex();

  constructor(
    private readonly executor: CommandExecutor,
    @Inject(DECIDER_RUNNER) private readonly runner: DeciderRunner,
    @Inject(CART_CONTRACT) private readonly contract: CartContractClient | null,
  ) {}

  async init(userId: string): Promise<{ created: boolean; message: string }> {
    return this.perUser.run(userId, async () => {
      const address = await this.suiAddressOf(userId);
      const { state } = await this.runner.state(cartDecider, 'cart', userId);
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

  async add(userId: string, product: ProductToAdd, commandId?: string): Promise<CartItemResponse> {
    return this.perUser.run(userId, async () => {
      const address = await this.suiAddressOf(userId);
      const itemId = randomUUID();
      const { state } = await this.runner.state(cartDecider, 'cart', userId);
      const [decided] = cartDecider.decide({ type: 'AddItem', itemId, product }, state) as Added[];
      const item = decided!.data;
      try {
        await this.contractOrFail().addItem(address, {
          productId: item.productId,
          productName: item.productName,
          priceCents: item.price,
          imageUrl: item.image,
          productUrl: item.productUrl,
          size: item.size,
          color: item.color,
          retailer: item.retailer,
        });
      } catch (error) {
        throw domainErrorOf(error);
      }
      const outcome = await this.executor.execute(
        cartDecider,
        'cart',
        userId,
        { type: 'AddItem', itemId, product, acceptedOnChain: true },
        { actor: { kind: 'user', id: userId }, commandId },
      );
      const added = outcome.events.find((e) => e.type === 'ItemAdded') as RecordedEvent<Added>;
      const { itemId: id, ...snapshot } = added.data;
      return { id, userId, ...snapshot, createdAt: new Date(added.occurredAt).toISOString() };
    });
  }

  async remove(userId: string, itemId: string): Promise<void> {
    await this.perUser.run(userId, async () => {
      const address = await this.suiAddressOf(userId);
      const { state } = await this.runner.state(cartDecider, 'cart', userId);
      if (!state.items.has(itemId)) throw cartItemNotFound();
      const objectId = state.links.get(itemId);
      if (!objectId) {
        throw new DomainError(
          'conflict',
          'CONFLICT',
          'The item is still being confirmed on chain; retry shortly',
        );
      }
      try {
        await this.contractOrFail().removeItem(address, objectId);
      } catch (error) {
        throw domainErrorOf(error);
      }
      await this.executor.execute(
        cartDecider,
        'cart',
        userId,
        { type: 'RemoveItem', itemId, reason: 'removed' },
        { actor: { kind: 'user', id: userId } },
      );
    });
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
    const { state } = await this.runner.state(userDecider, 'user', userId);
    if (!state.suiAddress) return null;
    try {
      return await this.contractOrFail().getCart(state.suiAddress);
    } catch (error) {
      throw domainErrorOf(error);
    }
  }

  private async record(userId: string, cartObjectId: string, txDigest: string): Promise<void> {
    await this.executor.execute(
      cartDecider,
      'cart',
      userId,
      { type: 'RecordOnChainCart', cartObjectId, txDigest },
      { actor: { kind: 'user', id: userId } },
    );
  }

  private async suiAddressOf(userId: string): Promise<string> {
    const { state } = await this.runner.state(userDecider, 'user', userId);
    if (state.walletStatus !== 'active' || !state.suiAddress) throw walletNotProvisioned();
    return state.suiAddress;
  }

  private contractOrFail(): CartContractClient {
    if (!this.contract)
      throw new DomainError('invalid', 'CONTRACT_NOT_CONFIGURED', 'No cart contract is configured');
    return this.contract;
  }
}
