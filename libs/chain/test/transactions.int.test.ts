import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainInputError, getTransaction, paymentReceiptsOf, sameAddress } from '@shop/chain';
import { newUser, startHarness, type Harness } from './stand-in';

const USDC = '0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC';

describe('getTransaction and payment receipts against the Sui stand-in', () => {
  let h: Harness;
  const payer = newUser();
  const receiver = newUser();

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.sandbox.close());

  const pay = (overrides: Partial<Parameters<Harness['sandbox']['createPayment']>[0]> = {}) =>
    h.sandbox.createPayment({
      payer,
      receiver,
      amountMist: 2_500_000n,
      coinType: USDC,
      nonce: 'n-42',
      ...overrides,
    });

  it('shows the balance changes and the receipt of a payment', async () => {
    const digest = pay();
    const tx = await getTransaction(h.sui, digest);

    expect(tx).toMatchObject({ digest, status: 'success', error: null, checkpoint: expect.any(String) });
    expect(sameAddress(tx?.sender ?? '', payer)).toBe(true);
    expect(tx?.balanceChanges).toEqual(
      expect.arrayContaining([
        { owner: payer, coinType: USDC, amount: -2_500_000n },
        { owner: receiver, coinType: USDC, amount: 2_500_000n },
      ]),
    );
    const receipts = paymentReceiptsOf(tx!, h.sandbox.paymentPackageId);
    expect(receipts).toEqual([
      {
        eventId: { txDigest: digest, eventSeq: '0' },
        nonce: 'n-42',
        amount: 2_500_000n,
        receiver,
        coinType: USDC,
      },
    ]);
  });

  it('finds no receipt in a failed payment, one without a receipt event, or one from another package', async () => {
    const failed = await getTransaction(h.sui, pay({ failed: true }));
    expect(failed).toMatchObject({ status: 'failure', error: expect.stringContaining('MoveAbort') });
    expect(failed?.balanceChanges.some((change) => change.coinType === USDC)).toBe(false);
    expect(paymentReceiptsOf(failed!, h.sandbox.paymentPackageId)).toEqual([]);

    const silent = await getTransaction(h.sui, pay({ emitReceipt: false }));
    expect(silent?.status).toBe('success');
    expect(paymentReceiptsOf(silent!, h.sandbox.paymentPackageId)).toEqual([]);

    const impostor = await getTransaction(h.sui, pay({ packageId: newUser() }));
    expect(impostor?.events).toHaveLength(1);
    expect(paymentReceiptsOf(impostor!, h.sandbox.paymentPackageId)).toEqual([]);
  });

  it('answers null for a digest the node does not know and refuses a malformed one', async () => {
    expect(await getTransaction(h.sui, '11111111111111111111111111111111')).toBeNull();
    await expect(getTransaction(h.sui, 'not-a-digest')).rejects.toBeInstanceOf(ChainInputError);
  });

  it('reads a relayer transaction with its gas as a SUI balance change of the relayer', async () => {
    const user = newUser();
    const { digest } = await h.cart.initCart(user);
    const tx = await getTransaction(h.sui, digest);
    expect(tx?.events.map((event) => event.type)).toEqual([`${h.sandbox.packageId}::cart::CartCreated`]);
    expect(tx?.balanceChanges).toEqual([
      { owner: h.cart.relayerAddress, coinType: '0x2::sui::SUI', amount: expect.any(BigInt) },
    ]);
    expect(tx?.balanceChanges[0]?.amount).toBeLessThan(0n);
  });
});
