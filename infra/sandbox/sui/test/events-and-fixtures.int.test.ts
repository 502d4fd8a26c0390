import { SuiClient, type SuiEvent } from '@mysten/sui/client';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Transaction } from '@mysten/sui/transactions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSuiSandbox, TESTNET_USDC, type SuiSandbox } from '../src';

const USDC = '0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC';

describe('Sui stand-in events, transactions and fixtures', () => {
  let sandbox: SuiSandbox;
  let client: SuiClient;
  const users = Array.from({ length: 3 }, () => Ed25519Keypair.generate().toSuiAddress());
  const payer = Ed25519Keypair.generate().toSuiAddress();
  const receiver = Ed25519Keypair.generate().toSuiAddress();
  let paymentDigest: string;

  beforeAll(async () => {
    sandbox = await startSuiSandbox({ port: 0 });
    client = new SuiClient({ url: sandbox.url });
    const relayer = Ed25519Keypair.fromSecretKey(sandbox.relayer.secretKey ?? '');
    for (const user of users) {
      const tx = new Transaction();
      tx.moveCall({
        target: `${sandbox.packageId}::cart::init_cart`,
        arguments: [tx.object(sandbox.registryId), tx.pure.address(user)],
      });
      await client.signAndExecuteTransaction({ transaction: tx, signer: relayer });
    }
    paymentDigest = sandbox.createPayment({
      payer,
      receiver,
      amountMist: 1_250_000n,
      coinType: USDC,
      nonce: 'n-1',
    });
  });
  afterAll(() => sandbox.close());

  const cartModule = () => ({ MoveModule: { package: sandbox.packageId, module: 'cart' } });
  const usersOf = (events: SuiEvent[]) => events.map((event) => (event.parsedJson as { user: string }).user);

  it('pages a module’s events oldest first with exclusive cursors', async () => {
    const first = await client.queryEvents({ query: cartModule(), limit: 2, order: 'ascending' });
    expect(usersOf(first.data)).toEqual(users.slice(0, 2));
    expect(first.hasNextPage).toBe(true);
    expect(first.nextCursor).toEqual(first.data[1]?.id);

    const second = await client.queryEvents({
      query: cartModule(),
      cursor: first.nextCursor,
      limit: 2,
      order: 'ascending',
    });
    expect(usersOf(second.data)).toEqual(users.slice(2));
    expect(second.hasNextPage).toBe(false);

    const empty = await client.queryEvents({
      query: cartModule(),
      cursor: second.nextCursor,
      order: 'ascending',
    });
    expect(empty).toEqual({ data: [], hasNextPage: false, nextCursor: second.nextCursor });
  });

  it('pages newest first by default, the SDK’s default order', async () => {
    const newest = await client.queryEvents({ query: cartModule(), limit: 1 });
    expect(usersOf(newest.data)).toEqual([users[2]]);
    const older = await client.queryEvents({ query: cartModule(), cursor: newest.nextCursor, limit: 5 });
    expect(usersOf(older.data)).toEqual([users[1], users[0]]);
  });

  it('filters by event type, defining module, sender and transaction', async () => {
    const receipts = await client.queryEvents({
      query: { MoveEventType: `${sandbox.paymentPackageId}::payment::PaymentReceipt` },
    });
    expect(receipts.data.map((event) => event.id.txDigest)).toEqual([paymentDigest]);

    const cartTypes = await client.queryEvents({
      query: { MoveEventModule: { package: sandbox.packageId, module: 'cart' } },
    });
    expect(cartTypes.data).toHaveLength(3);

    const fromPayer = await client.queryEvents({ query: { Sender: payer } });
    expect(fromPayer.data).toHaveLength(1);

    const byTx = await client.queryEvents({ query: { Transaction: paymentDigest } });
    expect(byTx.data[0]?.parsedJson).toEqual({
      nonce: 'n-1',
      amount: '1250000',
      receiver,
      payer,
      coin_type: USDC,
    });

    await expect(
      client.queryEvents({ query: { TimeRange: { startTime: '0', endTime: '1' } } }),
    ).rejects.toThrow(/does not support event filter TimeRange/);
    await expect(
      client.queryEvents({ query: cartModule(), cursor: { txDigest: paymentDigest, eventSeq: '9' } }),
    ).rejects.toThrow(/Could not find event/);
  });

  it('serves a payment with only the parts the options ask for', async () => {
    const bare = await client.getTransactionBlock({ digest: paymentDigest });
    expect(Object.keys(bare).sort()).toEqual(['checkpoint', 'digest', 'timestampMs']);

    const full = await client.getTransactionBlock({
      digest: paymentDigest,
      options: { showInput: true, showEffects: true, showEvents: true, showBalanceChanges: true },
    });
    expect(full.effects?.status).toEqual({ status: 'success' });
    expect(full.transaction?.data.sender).toBe(payer);
    expect(full.balanceChanges).toEqual([
      { owner: { AddressOwner: payer }, coinType: '0x2::sui::SUI', amount: expect.stringMatching(/^-\d+$/) },
      { owner: { AddressOwner: payer }, coinType: USDC, amount: '-1250000' },
      { owner: { AddressOwner: receiver }, coinType: USDC, amount: '1250000' },
    ]);
    expect(full.events?.[0]).toMatchObject({
      type: `${sandbox.paymentPackageId}::payment::PaymentReceipt`,
      packageId: sandbox.paymentPackageId,
      transactionModule: 'payment',
      bcs: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/),
    });
  });

  it('records payment variants: failed, without receipt, from another package', async () => {
    const failed = await client.getTransactionBlock({
      digest: sandbox.createPayment({
        payer,
        receiver,
        amountMist: 1n,
        coinType: USDC,
        nonce: 'f',
        failed: true,
      }),
      options: { showEffects: true, showEvents: true, showBalanceChanges: true },
    });
    expect(failed.effects?.status).toMatchObject({
      status: 'failure',
      error: expect.stringMatching(/^MoveAbort/),
    });
    expect(failed.events).toEqual([]);
    expect(failed.balanceChanges?.map((change) => change.coinType)).toEqual(['0x2::sui::SUI']);

    const silent = await client.getTransactionBlock({
      digest: sandbox.createPayment({
        payer,
        receiver,
        amountMist: 1n,
        coinType: USDC,
        nonce: 's',
        emitReceipt: false,
      }),
      options: { showEvents: true, showBalanceChanges: true },
    });
    expect(silent.events).toEqual([]);
    expect(silent.balanceChanges).toHaveLength(3);

    const otherPackage = `0x${'9'.repeat(64)}`;
    const foreign = await client.getTransactionBlock({
      digest: sandbox.createPayment({
        payer,
        receiver,
        amountMist: 1n,
        coinType: USDC,
        nonce: 'o',
        packageId: otherPackage,
      }),
      options: { showEvents: true },
    });
    expect(foreign.events?.[0]?.type).toBe(`${otherPackage}::payment::PaymentReceipt`);
  });

  it('records arbitrary fixtures under the given digest and makes their events queryable', async () => {
    const digest = sandbox.addTransaction({
      digest: '8Ew8Nkt6hP1TBQVb1XvYwMp7TT2w5sTDC3KgzjBBVmqT',
      sender: payer,
      call: { package: '0x42', module: 'market', function: 'list' },
      events: [{ type: '0x42::market::Listed', parsedJson: { price: '7' } }],
    });
    expect(digest).toBe('8Ew8Nkt6hP1TBQVb1XvYwMp7TT2w5sTDC3KgzjBBVmqT');
    const events = await client.queryEvents({ query: { MoveModule: { package: '0x42', module: 'market' } } });
    expect(events.data).toMatchObject([
      { id: { txDigest: digest, eventSeq: '0' }, parsedJson: { price: '7' } },
    ]);
    await expect(client.getTransactionBlock({ digest: '11111111111111111111111111111111' })).rejects.toThrow(
      /Could not find the referenced transaction/,
    );
  });

  it("pays in testnet USDC, the frontend's deposit coin, unless a payment or the stand-in names another", async () => {
    expect([sandbox.coinType, TESTNET_USDC]).toEqual([USDC, USDC]);
    const paidIn = async (stand: SuiSandbox, coinType?: string) => {
      const payment = await new SuiClient({ url: stand.url }).getTransactionBlock({
        digest: stand.createPayment({
          payer,
          receiver,
          amountMist: 5n,
          nonce: 'd',
          ...(coinType && { coinType }),
        }),
        options: { showEvents: true, showBalanceChanges: true },
      });
      const receipt = payment.events?.[0]?.parsedJson as { coin_type: string };
      return [receipt.coin_type, ...(payment.balanceChanges ?? []).slice(1).map((change) => change.coinType)];
    };
    expect(await paidIn(sandbox)).toEqual([USDC, USDC, USDC]);
    expect(await paidIn(sandbox, '0x2::sui::SUI')).toEqual([
      '0x2::sui::SUI',
      '0x2::sui::SUI',
      '0x2::sui::SUI',
    ]);

    // The operator's CHAIN_COIN_TYPE (main.ts passes it on) wins, and its metadata is known.
    const own = `0x${'ab'.repeat(32)}::usdc::USDC`;
    const configured = await startSuiSandbox({ port: 0, coinType: own });
    try {
      expect(configured.coinType).toBe(own);
      expect(await paidIn(configured)).toEqual([own, own, own]);
      const metadata = await new SuiClient({ url: configured.url }).getCoinMetadata({ coinType: own });
      expect(metadata).toMatchObject({ decimals: 6, symbol: 'USDC' });
    } finally {
      await configured.close();
    }
  });
});
