import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainAbortError, type ContractEvent } from '@shop/chain';
import { newUser, product, startHarness, type Harness } from './stand-in';

describe('CartContractClient against the Sui stand-in', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.sandbox.close());

  it('inits a cart, adds an item, pages the events with cursors, then removes the item', async () => {
    const user = newUser();
    expect(await h.cart.getCart(user)).toBeNull();

    const init = await h.cart.initCart(user);
    const added = await h.cart.addItem(user, product());
    expect(added.cartId).toBe(init.cartId);

    const cart = await h.cart.getCart(user);
    expect(cart).toEqual({ cartId: init.cartId, user, itemIds: [added.itemId], itemCount: 1 });

    const first = await h.cart.queryContractEvents(null, 1);
    const second = await h.cart.queryContractEvents(first.nextCursor, 1);
    const rest = await h.cart.queryContractEvents(second.nextCursor, 50);
    const mine = [...first.events, ...second.events, ...rest.events].filter(
      (event): event is Exclude<ContractEvent, { kind: 'Unknown' }> =>
        event.kind !== 'Unknown' && event.user === user,
    );
    expect(first.hasNextPage).toBe(true);
    expect(mine.map((event) => event.kind)).toEqual(['CartCreated', 'CartItemAdded']);
    expect(mine[0]).toMatchObject({ kind: 'CartCreated', txDigest: init.digest, cartId: init.cartId });
    expect(mine[1]).toMatchObject({
      kind: 'CartItemAdded',
      txDigest: added.digest,
      itemId: added.itemId,
      product: product({ priceCents: 2_999n }),
    });

    const drained = await h.cart.queryContractEvents(rest.nextCursor, 50);
    expect(drained).toEqual({ events: [], nextCursor: rest.nextCursor, hasNextPage: false });

    const removed = await h.cart.removeItem(user, added.itemId);
    expect(removed.events).toMatchObject([
      { kind: 'CartItemRemoved', user, cartId: init.cartId, itemId: added.itemId },
    ]);
    const after = await h.cart.queryContractEvents(rest.nextCursor, 50);
    expect(after.events.map((event) => event.kind)).toEqual(['CartItemRemoved']);
    expect(await h.cart.getCart(user)).toMatchObject({ itemIds: [], itemCount: 0 });
    expect(h.sandbox.carts().find((c) => c.user === user)?.items).toEqual([]);
  });

  it('refuses an eleventh item with CartFull and keeps the ten', async () => {
    const user = newUser();
    await h.cart.initCart(user);
    for (let i = 0; i < 10; i += 1) await h.cart.addItem(user, product({ productId: `B0ITEM${i}` }));

    const error = await h.cart.addItem(user, product({ productId: 'B0ITEM10' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainAbortError);
    expect(error).toMatchObject({ abortName: 'CartFull', abortCode: 1, functionName: 'add_item' });
    expect((await h.cart.getCart(user))?.itemCount).toBe(10);
  });

  it('refuses the same product, size and color twice with DuplicateItem, but not another size', async () => {
    const user = newUser();
    await h.cart.initCart(user);
    await h.cart.addItem(user, product());
    await expect(h.cart.addItem(user, product({ productName: 'renamed' }))).rejects.toMatchObject({
      abortName: 'DuplicateItem',
      abortCode: 2,
    });
    await expect(h.cart.addItem(user, product({ size: 'L' }))).resolves.toMatchObject({
      itemId: expect.any(String),
    });
  });

  it('refuses to remove an item that is not in the cart with ItemNotFound', async () => {
    const user = newUser();
    const other = newUser();
    await h.cart.initCart(user);
    await h.cart.initCart(other);
    const { itemId } = await h.cart.addItem(other, product());

    await expect(h.cart.removeItem(user, itemId)).rejects.toMatchObject({
      abortName: 'ItemNotFound',
      abortCode: 3,
    });
    await h.cart.removeItem(other, itemId);
    await expect(h.cart.removeItem(other, itemId)).rejects.toMatchObject({ abortName: 'ItemNotFound' });
  });

  it('refuses a second init_cart with CartExists and calls without a cart with CartNotFound', async () => {
    const user = newUser();
    await h.cart.initCart(user);
    await expect(h.cart.initCart(user)).rejects.toMatchObject({ abortName: 'CartExists', abortCode: 4 });
    await expect(h.cart.addItem(newUser(), product())).rejects.toMatchObject({
      abortName: 'CartNotFound',
      abortCode: 5,
    });
  });

  it('refuses invalid product data with InvalidProduct', async () => {
    const user = newUser();
    await h.cart.initCart(user);
    await expect(h.cart.addItem(user, product({ priceCents: 0 }))).rejects.toMatchObject({
      abortName: 'InvalidProduct',
    });
    await expect(h.cart.addItem(user, product({ size: 'x'.repeat(51) }))).rejects.toMatchObject({
      abortName: 'InvalidProduct',
    });
  });

  it('checks out an item: OrderCreated carries the order id, the item stays in the cart', async () => {
    const user = newUser();
    await h.cart.initCart(user);
    const { itemId, cartId } = await h.cart.addItem(user, product({ priceCents: 4_500 }));

    const result = await h.cart.checkout(user, 'order-7f3a', itemId);
    expect(result.events).toMatchObject([
      {
        kind: 'OrderCreated',
        user,
        cartId,
        orderId: 'order-7f3a',
        itemId,
        productId: 'B0TESTITEM',
        priceCents: 4_500n,
      },
    ]);
    expect((await h.cart.getCart(user))?.itemIds).toEqual([itemId]);
    await expect(h.cart.checkout(user, '', itemId)).rejects.toMatchObject({ abortName: 'InvalidOrderId' });
  });

  it('reports an abort of an executed transaction with its digest when the budget is fixed (no dry run)', async () => {
    const fixed = await startHarness({ gasBudget: 50_000_000n });
    try {
      const user = newUser();
      await fixed.cart.initCart(user);
      const error = await fixed.cart.initCart(user).catch((e: unknown) => e);
      expect(error).toMatchObject({ abortName: 'CartExists', digest: expect.any(String) });
      const tx = await fixed.sui.getTransactionBlock({
        digest: (error as ChainAbortError).digest ?? '',
        options: { showEffects: true },
      });
      expect(tx.effects?.status).toMatchObject({
        status: 'failure',
        error: expect.stringContaining('MoveAbort'),
      });
      expect(fixed.sandbox.requestCount('sui_dryRunTransactionBlock')).toBe(0);
    } finally {
      await fixed.sandbox.close();
    }
  });

  it('runs concurrent calls one at a time so they never race on the gas coin', async () => {
    const users = [newUser(), newUser(), newUser(), newUser()];
    const results = await Promise.all(users.map((user) => h.cart.initCart(user)));
    expect(new Set(results.map((r) => r.digest)).size).toBe(users.length);
  });
});
