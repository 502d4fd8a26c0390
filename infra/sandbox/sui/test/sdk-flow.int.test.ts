import { JsonRpcError, SuiClient, SuiHTTPStatusError } from '@mysten/sui/client';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Transaction } from '@mysten/sui/transactions';
import { toBase64 } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { settlement } from '@shop/testing';
import { startSuiSandbox, type SuiSandbox } from '../src';

/*
 * The stand-in driven by @mysten/sui's own SuiClient with no help: the SDK resolves argument
 * types, the registry reference, gas price, budget (dry run) and gas coins against it.
 */
describe('Sui stand-in with the SDK’s default transaction flow', () => {
  let sandbox: SuiSandbox;
  let client: SuiClient;
  let relayer: Ed25519Keypair;

  beforeAll(async () => {
    sandbox = await startSuiSandbox({ port: 0 });
    client = new SuiClient({ url: sandbox.url });
    relayer = Ed25519Keypair.fromSecretKey(sandbox.relayer.secretKey ?? '');
  });
  afterAll(() => sandbox.close());

  const initCartTx = (user: string) => {
    const tx = new Transaction();
    tx.moveCall({
      target: `${sandbox.packageId}::cart::init_cart`,
      arguments: [tx.object(sandbox.registryId), tx.pure.address(user)],
    });
    return tx;
  };
  const newUser = () => Ed25519Keypair.generate().toSuiAddress();

  it('resolves, dry-runs, signs and executes a call the way a node would serve it', async () => {
    const user = newUser();
    const result = await client.signAndExecuteTransaction({
      transaction: initCartTx(user),
      signer: relayer,
      options: { showEffects: true, showEvents: true, showObjectChanges: true, showBalanceChanges: true },
    });

    for (const method of [
      'sui_getNormalizedMoveFunction',
      'sui_multiGetObjects',
      'suix_getReferenceGasPrice',
      'sui_dryRunTransactionBlock',
      'suix_getCoins',
      'sui_executeTransactionBlock',
    ]) {
      expect(sandbox.requestCount(method), method).toBe(1);
    }
    expect(result.effects?.status).toEqual({ status: 'success' });
    expect(result.effects?.transactionDigest).toBe(result.digest);
    const cartId = sandbox.carts().find((cart) => cart.user === user)?.cartId;
    expect(result.events).toMatchObject([
      {
        id: { txDigest: result.digest, eventSeq: '0' },
        type: `${sandbox.packageId}::cart::CartCreated`,
        parsedJson: { user, cart_id: cartId },
        sender: relayer.toSuiAddress(),
        bcsEncoding: 'base64',
      },
    ]);
    expect(result.objectChanges?.map((change) => change.type).sort()).toEqual([
      'created',
      'mutated',
      'mutated',
    ]);
    expect(result.balanceChanges).toMatchObject([
      {
        owner: { AddressOwner: relayer.toSuiAddress() },
        coinType: '0x2::sui::SUI',
        amount: expect.stringMatching(/^-\d+$/),
      },
    ]);
    expect(result.effects?.sharedObjects).toMatchObject([{ objectId: sandbox.registryId, version: '3' }]);

    const registry = await client.getObject({
      id: sandbox.registryId,
      options: { showOwner: true, showContent: true },
    });
    expect(registry.data?.owner).toEqual({ Shared: { initial_shared_version: '3' } });
    expect(Number(registry.data?.version)).toBeGreaterThan(3);
    expect(registry.data?.content).toMatchObject({
      fields: { relayer: relayer.toSuiAddress(), cart_count: '1' },
    });

    const cart = await client.getDynamicFieldObject({
      parentId: sandbox.registryId,
      name: { type: 'address', value: user },
    });
    expect(cart.data?.content).toMatchObject({
      type: `${sandbox.packageId}::cart::Cart`,
      fields: { user, item_ids: [] },
    });
  });

  it('describes the entry functions from the contract file, TxContext included', async () => {
    const fn = await client.getNormalizedMoveFunction({
      package: sandbox.packageId,
      module: 'cart',
      function: 'remove_item',
    });
    expect(fn).toMatchObject({ isEntry: true, visibility: 'Public', return: [] });
    expect(fn.parameters).toEqual([
      {
        MutableReference: {
          Struct: { address: sandbox.packageId, module: 'cart', name: 'CartRegistry', typeArguments: [] },
        },
      },
      'Address',
      { Struct: { address: `0x${'0'.repeat(63)}2`, module: 'object', name: 'ID', typeArguments: [] } },
      {
        MutableReference: {
          Struct: {
            address: `0x${'0'.repeat(63)}2`,
            module: 'tx_context',
            name: 'TxContext',
            typeArguments: [],
          },
        },
      },
    ]);
    await expect(
      client.getNormalizedMoveFunction({ package: sandbox.packageId, module: 'cart', function: 'nope' }),
    ).rejects.toBeInstanceOf(JsonRpcError);
  });

  it('rejects a transaction signed by someone other than its sender, or with a corrupted signature', async () => {
    const user = newUser();
    const tx = initCartTx(user);
    tx.setSender(relayer.toSuiAddress());
    const bytes = await tx.build({ client });
    const impostor = await Ed25519Keypair.generate().signTransaction(bytes);
    const genuine = await relayer.signTransaction(bytes);
    const corrupted = Uint8Array.from(Buffer.from(genuine.signature, 'base64'));
    corrupted[10] = (corrupted[10] ?? 0) ^ 0xff;

    for (const signature of [impostor.signature, toBase64(corrupted), [] as string[]]) {
      const error = await client
        .executeTransactionBlock({ transactionBlock: bytes, signature })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JsonRpcError);
      expect((error as JsonRpcError).message).toMatch(/^Invalid user signature/);
    }
    expect(sandbox.carts().some((cart) => cart.user === user)).toBe(false);
  });

  it('executes the same signed bytes once: a resubmission returns the recorded transaction', async () => {
    const user = newUser();
    const tx = initCartTx(user);
    tx.setSender(relayer.toSuiAddress());
    const bytes = await tx.build({ client });
    const { signature } = await relayer.signTransaction(bytes);

    const first = await client.executeTransactionBlock({
      transactionBlock: bytes,
      signature,
      options: { showEvents: true },
    });
    const again = await client.executeTransactionBlock({
      transactionBlock: bytes,
      signature,
      options: { showEvents: true },
    });
    expect(again.digest).toBe(first.digest);
    expect(again.events).toEqual(first.events);
    expect(sandbox.carts().filter((cart) => cart.user === user)).toHaveLength(1);
  });

  it('refuses a gas coin version that a later transaction already consumed', async () => {
    const tx = initCartTx(newUser());
    tx.setSender(relayer.toSuiAddress());
    const stale = await tx.build({ client });
    await client.signAndExecuteTransaction({ transaction: initCartTx(newUser()), signer: relayer });

    const { signature } = await relayer.signTransaction(stale);
    await expect(client.executeTransactionBlock({ transactionBlock: stale, signature })).rejects.toThrow(
      /not available for consumption/,
    );
  });

  it('records a call from a sender that is not the relayer as a failed transaction with abort Unauthorized (6)', async () => {
    const stranger = Ed25519Keypair.generate();
    sandbox.fund(stranger.toSuiAddress(), 10_000_000_000n);
    const tx = initCartTx(newUser());
    tx.setGasBudget(50_000_000);
    const result = await client.signAndExecuteTransaction({
      transaction: tx,
      signer: stranger,
      options: { showEffects: true },
    });

    expect(result.effects?.status.status).toBe('failure');
    expect(result.effects?.status.error).toBe(
      `MoveAbort(MoveLocation { module: ModuleId { address: ${sandbox.packageId.slice(2)}, name: Identifier("cart") }, function: 0, instruction: 0, function_name: Some("init_cart") }, 6) in command 0`,
    );
    expect(result.effects?.gasUsed.computationCost).not.toBe('0');
    const coins = await client.getCoins({ owner: stranger.toSuiAddress() });
    expect(BigInt(coins.data[0]?.balance ?? 0)).toBeLessThan(10_000_000_000n);
  });

  it('fails argument bytes that do not match the parameter type, and a wrong argument count', async () => {
    const badBytes = new Transaction();
    badBytes.setGasBudget(50_000_000);
    badBytes.moveCall({
      target: `${sandbox.packageId}::cart::init_cart`,
      arguments: [badBytes.object(sandbox.registryId), badBytes.pure.u8(1)],
    });
    const bad = await client.signAndExecuteTransaction({
      transaction: badBytes,
      signer: relayer,
      options: { showEffects: true },
    });
    expect(bad.effects?.status).toEqual({
      status: 'failure',
      error: 'CommandArgumentError { arg_idx: 1, kind: InvalidBCSBytes } in command 0',
    });

    const arity = new Transaction();
    arity.setGasBudget(50_000_000);
    arity.moveCall({
      target: `${sandbox.packageId}::cart::init_cart`,
      arguments: [
        arity.sharedObjectRef({ objectId: sandbox.registryId, initialSharedVersion: 3, mutable: true }),
      ],
    });
    const short = await client.signAndExecuteTransaction({
      transaction: arity,
      signer: relayer,
      options: { showEffects: true },
    });
    expect(short.effects?.status).toEqual({ status: 'failure', error: 'ArityMismatch in command 0' });
  });

  it('answers a dry run without changing anything', async () => {
    const user = newUser();
    const tx = initCartTx(user);
    tx.setSender(relayer.toSuiAddress());
    const bytes = await tx.build({ client });
    const before = await client.getObject({ id: sandbox.registryId });

    const dry = await client.dryRunTransactionBlock({ transactionBlock: bytes });
    expect(dry.effects.status.status).toBe('success');
    expect(dry.events).toHaveLength(1);
    expect((await client.getObject({ id: sandbox.registryId })).data?.version).toBe(before.data?.version);
    expect(sandbox.carts().some((cart) => cart.user === user)).toBe(false);
  });

  it('reports deleted and unknown objects as the node does', async () => {
    expect(await client.getObject({ id: `0x${'e'.repeat(64)}` })).toEqual({
      error: { code: 'notExists', object_id: `0x${'e'.repeat(64)}` },
    });
    const missing = await client.getDynamicFieldObject({
      parentId: sandbox.registryId,
      name: { type: 'address', value: newUser() },
    });
    expect(missing).toEqual({
      error: { code: 'dynamicFieldNotFound', parent_object_id: sandbox.registryId },
    });

    const user = newUser();
    await client.signAndExecuteTransaction({ transaction: initCartTx(user), signer: relayer });
    const add = new Transaction();
    add.moveCall({
      target: `${sandbox.packageId}::cart::add_item`,
      arguments: [
        add.object(sandbox.registryId),
        add.pure.address(user),
        ...['B0X', 'Shirt'].map((text) => add.pure.string(text)),
        add.pure.u64(1_000),
        ...['https://i.example/x.jpg', 'https://s.example/x', 'M', 'Blue', 'marketplace'].map((text) =>
          add.pure.string(text),
        ),
      ],
    });
    const added = await client.signAndExecuteTransaction({
      transaction: add,
      signer: relayer,
      options: { showEvents: true },
    });
    const itemId = (added.events?.[0]?.parsedJson as { item_id: string }).item_id;
    const remove = new Transaction();
    remove.moveCall({
      target: `${sandbox.packageId}::cart::remove_item`,
      arguments: [remove.object(sandbox.registryId), remove.pure.address(user), remove.pure.id(itemId)],
    });
    const removed = await client.signAndExecuteTransaction({
      transaction: remove,
      signer: relayer,
      options: { showEffects: true },
    });

    expect(removed.effects?.deleted).toEqual([
      {
        objectId: itemId,
        version: expect.any(String),
        digest: '7gyGAp71YXQRoxmFBaHxofQXAipvgHyBKPyxmdSJxyvz',
      },
    ]);
    expect((await client.getObject({ id: itemId })).error).toMatchObject({
      code: 'deleted',
      object_id: itemId,
    });
  });

  it('answers unknown methods and faults like a node or its proxy would', async () => {
    await expect(client.call('sui_noSuchMethod', [])).rejects.toMatchObject({
      code: -32601,
      type: 'MethodNotFound',
    });

    sandbox.failNext(1, { mode: 'unavailable' });
    const unavailable = await client.getReferenceGasPrice().catch((e: unknown) => e);
    expect(unavailable).toBeInstanceOf(SuiHTTPStatusError);
    expect(unavailable).toMatchObject({ status: 503 });

    sandbox.failNext(1, { mode: 'disconnect', method: 'suix_getReferenceGasPrice' });
    await expect(client.getReferenceGasPrice()).rejects.toThrow(/fetch failed/);
    await expect(client.getReferenceGasPrice()).resolves.toBe(750n);

    // The held answer waits on the stand-in's timer, which only the test moves.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      sandbox.setLatency(150, { method: 'sui_getChainIdentifier' });
      const asked = sandbox.requestCount('sui_getChainIdentifier');
      const slow = settlement(client.call('sui_getChainIdentifier', []));
      while (sandbox.requestCount('sui_getChainIdentifier') === asked) await nextTurn();
      await expect(client.getReferenceGasPrice()).resolves.toBe(750n);
      expect(slow.settled).toBe(false);
      await vi.advanceTimersByTimeAsync(150);
      await expect(slow.promise).resolves.toBe(sandbox.chainIdentifier);
    } finally {
      vi.useRealTimers();
    }
    sandbox.setLatency(0, { method: 'sui_getChainIdentifier' });
  });

  it('executes a transaction whose answer it then drops', async () => {
    const user = newUser();
    sandbox.failNext(1, { mode: 'lost-response', method: 'sui_executeTransactionBlock' });
    await expect(
      client.signAndExecuteTransaction({ transaction: initCartTx(user), signer: relayer }),
    ).rejects.toThrow(/fetch failed/);
    expect(sandbox.carts().some((cart) => cart.user === user)).toBe(true);
  });
});

/** One turn of the event loop, on a timer fake timers leave alone here. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
