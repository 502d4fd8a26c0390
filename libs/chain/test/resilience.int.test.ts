import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CartContractClient,
  ChainRpcError,
  ChainTransportError,
  createSuiClient,
  getTransaction,
} from '@shop/chain';
import { newUser, product, startHarness, type Harness } from './stand-in';

describe('CartContractClient retries and timeouts', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.sandbox.close());

  it('retries a transaction the node never saw (503, cut connection) and executes it once', async () => {
    const user = newUser();
    h.sandbox.failNext(1, { mode: 'unavailable', method: 'sui_executeTransactionBlock' });
    h.sandbox.failNext(1, { mode: 'disconnect', method: 'sui_executeTransactionBlock' });

    const { cartId } = await h.cart.initCart(user);

    expect(h.sandbox.requestCount('sui_executeTransactionBlock')).toBe(3);
    expect(h.sandbox.carts().filter((cart) => cart.user === user)).toEqual([{ user, cartId, items: [] }]);
  });

  it('does not resend a transaction the node executed when only the answer was lost', async () => {
    const user = newUser();
    await h.cart.initCart(user);
    h.sandbox.failNext(1, { mode: 'lost-response', method: 'sui_executeTransactionBlock' });

    const { itemId, digest } = await h.cart.addItem(user, product());

    expect(h.sandbox.requestCount('sui_executeTransactionBlock')).toBe(2);
    expect(
      h.sandbox
        .carts()
        .find((cart) => cart.user === user)
        ?.items.map((item) => item.itemId),
    ).toEqual([itemId]);
    expect((await getTransaction(h.sui, digest))?.status).toBe('success');
  });

  it('retries reads on transport failures', async () => {
    h.sandbox.failNext(2, { mode: 'unavailable', method: 'suix_getDynamicFieldObject' });
    expect(await h.cart.getCart(newUser())).toBeNull();
    expect(h.sandbox.requestCount('suix_getDynamicFieldObject')).toBe(3);
  });

  it('gives up after the bounded attempts with the digest of the transaction whose outcome is unknown', async () => {
    h.sandbox.failNext(3, { mode: 'disconnect', method: 'sui_executeTransactionBlock' });
    const error = await h.cart.initCart(newUser()).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ChainTransportError);
    expect(error).toMatchObject({ attempts: 3, digest: expect.any(String) });
    expect(h.sandbox.requestCount('sui_executeTransactionBlock')).toBe(3);
    expect(await getTransaction(h.sui, (error as ChainTransportError).digest ?? '')).toBeNull();
  });

  it('times out a slow node instead of hanging', async () => {
    const slow = new CartContractClient({
      client: createSuiClient({ url: h.sandbox.url, requestTimeoutMs: 500 }),
      packageId: h.sandbox.packageId,
      registryId: h.sandbox.registryId,
      relayer: h.sandbox.relayer.secretKey ?? '',
      retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 10 },
    });
    h.sandbox.setLatency(2_000, { method: 'suix_getDynamicFieldObject' });

    // The node would answer (with an empty cart) after 2 s: only the 500 ms timeout makes the read fail.
    const error = await slow.getCart(newUser()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainTransportError);
    expect(error).toMatchObject({ attempts: 2, message: expect.stringContaining('aborted due to timeout') });
    expect(h.sandbox.requestCount('suix_getDynamicFieldObject')).toBe(2);
  });

  it('never resends a transaction the node refused', async () => {
    // Two clients of one relayer key, without the shared queue, build on the same gas coin
    // version; delayed executes make both land after both were built. The node runs the first
    // and refuses the second (its gas coin version is gone), which is final.
    const twin = new CartContractClient({
      client: h.sui,
      packageId: h.sandbox.packageId,
      registryId: h.sandbox.registryId,
      relayer: h.sandbox.relayer.secretKey ?? '',
      retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 10 },
    });
    h.sandbox.setLatency(500, { method: 'sui_executeTransactionBlock' });

    const outcomes = await Promise.allSettled([h.cart.initCart(newUser()), twin.initCart(newUser())]);

    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refusal = outcomes.find((outcome) => outcome.status === 'rejected')?.reason;
    expect(refusal).toBeInstanceOf(ChainRpcError);
    expect(refusal).toMatchObject({ message: expect.stringContaining('not available for consumption') });
    expect(h.sandbox.requestCount('sui_executeTransactionBlock')).toBe(2);
  });
});
