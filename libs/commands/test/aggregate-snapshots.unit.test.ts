import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AggregateName, systemActor } from '@shop/contracts';
import {
  Aggregate,
  cartAggregate,
  depositAggregate,
  DomainError,
  fold,
  memoryAggregate,
  orderAggregate,
  paymentAggregate,
  providerWebhookAggregate,
  sessionAggregate,
  userAggregate,
} from '@shop/domain';
import { DeciderRunner } from '../src/decider-runner';
import { authenticateSnapshot } from '../src/snapshot-mac';
import { InMemorySnapshots } from './in-memory-snapshots';
import { InMemoryStore } from './in-memory-store';

/** The writing service's snapshot key. */
const key = randomBytes(32);

type AnyAggregate = Aggregate<unknown, { type: string; data: unknown }, unknown>;

const meta = (commandId: string) => ({ commandId, correlationId: 'c', actor: systemActor });
const userId = '0b7c6d5e-4f3a-4b2c-8d1e-0f9a8b7c6d5e';
const full = (hex: string) => `0x${hex.padStart(64, '0')}`;
const item = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
const product = (n: number) => ({
  productId: `P${n}`,
  productName: `Product ${n}`,
  price: 1000 + n,
  image: 'https://img.example.com/1.jpg',
  productUrl: 'https://shop.example.com/p/1',
  retailer: 'Example',
  ...(n % 2 === 0 ? { size: 'M', color: 'Blue' } : {}),
});
const delivery = (providerOrderId: string) => ({
  eventType: 'orders.payment.succeeded',
  actionId: null,
  providerOrderId,
  phase: 'payment',
  payment: null,
  quote: null,
  failureReason: null,
});
const paying = (amount: bigint) => ({
  status: 'success' as const,
  error: null,
  sender: full('5e4d'),
  balanceChanges: [
    { owner: full('b0b'), coinType: '0x2::sui::SUI', amount: -amount - 750n },
    { owner: '0xa11ce', coinType: '0x2::sui::SUI', amount },
  ],
});
const terms = { network: 'testnet', merchant: '0xa11ce', coinType: '0x2::sui::SUI', minimumAmount: 1_000n };

/**
 * Each aggregate kind with commands that reach every part of its state (Maps, Sets, nested
 * objects, nulls); a sequence of them refused by the decider is just skipped.
 */
const kinds: { aggregate: AnyAggregate; id: string; commands: unknown[] }[] = [
  {
    aggregate: cartAggregate as unknown as AnyAggregate,
    id: userId,
    commands: [
      ...[1, 2, 3].map((n) => ({ type: 'AddItem', itemId: item(n), product: product(n) })),
      ...[1, 2].map((n) => ({ type: 'RemoveItem', itemId: item(n), reason: 'removed' })),
      { type: 'RemoveItem', itemId: item(3), reason: 'ordered' },
      { type: 'RestoreItem', itemId: item(3) },
      { type: 'BeginCheckout', itemId: item(2), orderId: item(7), now: 1_700_000_000_000 },
      { type: 'ReleaseCheckout', itemId: item(2), orderId: item(7), reason: 'done' },
      { type: 'RecordOnChainCart', cartObjectId: full('cafe'), txDigest: 'digest1' },
      {
        type: 'LinkOnChainItem',
        objectId: full('0b1'),
        fallbackItemId: item(4),
        product: {
          productId: 'P4',
          productName: 'Product 4',
          priceCents: '1999',
          imageUrl: 'https://img.example.com/4.jpg',
          productUrl: 'https://shop.example.com/p/4',
          size: 'Default',
          color: 'Default',
          retailer: 'Example',
        },
      },
      { type: 'RemoveOnChainItem', objectId: full('0b1') },
    ],
  },
  {
    aggregate: userAggregate as unknown as AnyAggregate,
    id: userId,
    commands: [
      { type: 'RegisterUser', providerSubject: 'sub-1', email: 'ada@example.com' },
      { type: 'SetDisplayName', displayName: 'Ada' },
      {
        type: 'SaveShippingAddress',
        address: {
          firstName: 'Ada',
          lastName: 'L',
          street: '1 Main Street',
          country: 'GB',
          city: 'London',
          zip: 'N1 1AA',
        },
      },
      { type: 'SaveSizes', sizes: { topsSize: 'M', bottomsSize: '32', footwearSize: '42' } },
      { type: 'StartWalletProvisioning' },
      { type: 'FailWalletProvisioning', attempt: 1, reason: 'down' },
      {
        type: 'CompleteWalletProvisioning',
        attempt: 1,
        suiAddress: full('5a1'),
        evmAddress: `0x${'e'.repeat(40)}`,
      },
    ],
  },
  {
    aggregate: sessionAggregate as unknown as AnyAggregate,
    id: item(5),
    commands: [
      { type: 'CreateSession', userId, title: null },
      { type: 'RenameSession', userId, title: 'Shoes', generated: false },
      ...[1, 2, 3].map((n) => ({
        type: 'AppendMessage',
        userId,
        messageId: item(n),
        role: n % 2 ? 'user' : 'assistant',
        parts: [{ type: 'text', text: `message ${n}` }],
      })),
      { type: 'DeleteSession', userId },
    ],
  },
  {
    aggregate: memoryAggregate as unknown as AnyAggregate,
    id: userId,
    commands: ['likes blue', 'slim fit', 'size 42 shoes'].map((fact) => ({
      type: 'RememberPreference',
      fact,
      namespace: 'style',
      source: 'chat',
    })),
  },
  {
    aggregate: orderAggregate as unknown as AnyAggregate,
    id: item(6),
    commands: [
      {
        type: 'CreateOrder',
        userId,
        cartItemId: item(1),
        providerOrderId: 'po-1',
        phase: 'awaiting-approval',
        item: { ...product(2), size: 'Default', color: 'Default' },
        payment: null,
        quote: null,
        walletAddress: '0xabc',
        serializedTransaction: 'tx',
      },
      ...(['payment_succeeded', 'delivery_initiated', 'delivery_completed', 'payment_failed'] as const).map(
        (kind) => ({
          type: 'ApplyProviderUpdate',
          kind,
          phase: kind,
          payment: { status: 'paid', currency: 'USDC' },
          quote: { totalPrice: { amount: '19.99', currency: 'USDC' } },
          deliveryId: `delivery-${kind}`,
          reason: null,
        }),
      ),
      { type: 'RecordOnChainCheckoutSubmitted', txDigest: 'd1' },
      { type: 'RecordOnChainCheckout', txDigest: 'd1' },
      { type: 'RecordOnChainCheckoutFailure', reason: 'refused' },
    ],
  },
  {
    aggregate: paymentAggregate as unknown as AnyAggregate,
    id: item(8),
    commands: [
      { type: 'VerifyPayment', paymentId: item(8), userId, terms, transaction: paying(5_000n) },
      { type: 'VerifyPayment', paymentId: item(8), userId, terms, transaction: paying(10n) },
      {
        type: 'RecordConfirmationDelivery',
        delivery: { acknowledged: true, backendStatus: 200, attempts: 1 },
      },
      {
        type: 'RecordConfirmationDelivery',
        delivery: { acknowledged: false, refused: false, reason: 'down', backendStatus: null, attempts: 2 },
      },
    ],
  },
  {
    aggregate: depositAggregate as unknown as AnyAggregate,
    id: item(9),
    commands: [
      {
        type: 'ClaimDeposit',
        userId,
        payerAddress: full('b0b'),
        evmAddress: `0x${'e'.repeat(40)}`,
        amountMist: '5000',
        usdcAmount: '1.5',
        coinType: '0x2::sui::SUI',
        source: 'verify',
        now: 1_700_000_000_000,
      },
      { type: 'RecordDepositFailure', attempt: 1, reason: 'refused' },
      { type: 'RecordDepositCredit', attempt: 1, usdmxAmount: '1.5', evmAddress: `0x${'e'.repeat(40)}` },
    ],
  },
  {
    aggregate: providerWebhookAggregate as unknown as AnyAggregate,
    id: 'msg_1',
    commands: [{ type: 'RecordWebhook', delivery: delivery('po-1') }],
  },
];

/** Runs the commands one by one (a refusal is skipped); each command id is its position. */
async function runAll(runner: DeciderRunner, kind: (typeof kinds)[number], commands: unknown[], from = 0) {
  for (const [at, command] of commands.entries()) {
    try {
      await runner.run(kind.aggregate, kind.id, command, meta(`cmd-${from + at}`));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
  }
}

/** Every event stored for the instance, folded from the start: the source of truth. */
async function folded(store: InMemoryStore, kind: (typeof kinds)[number]) {
  const { events, version } = await store.load(kind.aggregate.name as AggregateName, kind.id, 0);
  return { state: fold(kind.aggregate.decider, events as never), version };
}

describe('aggregate snapshots', () => {
  for (const kind of kinds) {
    it(`a ${kind.aggregate.name} loaded cold from its snapshot and the commits after it equals its whole history folded`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom(...kind.commands), { minLength: 1, maxLength: 24 }),
          fc.integer({ min: 1, max: 5 }),
          async (commands, every) => {
            const store = new InMemoryStore();
            const snapshots = new InMemorySnapshots();
            const writer = new DeciderRunner(store, { snapshots: { store: snapshots, key, every } });
            await runAll(writer, kind, commands);
            await writer.snapshotsWritten();

            const truth = await folded(store, kind);
            const snapshot = await snapshots.read(kind.aggregate.name as AggregateName, kind.id);
            const cold = new DeciderRunner(store, { snapshots: { store: snapshots, key, every } });
            const loads: number[] = [];
            const load = store.load.bind(store);
            store.load = (name, id, after) => (loads.push(after ?? 0), load(name, id, after));
            expect(await cold.state(kind.aggregate, kind.id)).toEqual(truth);
            // From the snapshot's own last commit, read again to check it is in the stream.
            expect(loads).toEqual([snapshot ? snapshot.version - 1 : 0]);
            if (truth.version > 0 && store.messages.length >= every) expect(snapshot).not.toBeNull();
          },
        ),
        { numRuns: 40 },
      );
    });
  }

  it('a repeated command id after a snapshot answers the first result without deciding again', async () => {
    const store = new InMemoryStore();
    const snapshots = new InMemorySnapshots();
    const kind = kinds[0]!;
    const writer = new DeciderRunner(store, { snapshots: { store: snapshots, key, every: 2 } });
    await runAll(writer, kind, kind.commands.slice(0, 3));
    await writer.snapshotsWritten();
    const cold = new DeciderRunner(store, { snapshots: { store: snapshots, key, every: 2 } });
    store.seenCommands.clear(); // the stream's duplicate window has passed
    const again = await cold.run(kind.aggregate, kind.id, kind.commands[0], meta('cmd-0'));
    expect(again.appended).toBe(false);
    expect(again.events.map((e) => e.type)).toEqual(['ItemAdded']);
    expect(store.messages).toHaveLength(3);
  });

  it('a snapshot of another schema version is ignored, not trusted', async () => {
    const store = new InMemoryStore();
    const snapshots = new InMemorySnapshots();
    const kind = kinds[3]!;
    const writer = new DeciderRunner(store, { snapshots: { store: snapshots, key, every: 1 } });
    await runAll(writer, kind, kind.commands);
    await writer.snapshotsWritten();
    const stored = snapshots.entries.get(`memory.${kind.id}`)!;
    snapshots.entries.set(`memory.${kind.id}`, { ...stored, schema: kind.aggregate.snapshotVersion + 1 });
    const truth = await folded(store, kind);
    const cold = new DeciderRunner(store, { snapshots: { store: snapshots, key, every: 100 } });
    const loads: number[] = [];
    const load = store.load.bind(store);
    store.load = (name, id, after) => (loads.push(after ?? 0), load(name, id, after));
    expect(await cold.state(kind.aggregate, kind.id)).toEqual(truth);
    expect(loads).toEqual([0]);
  });

  it('a corrupt snapshot is ignored and the aggregate folded from the stream', async () => {
    const store = new InMemoryStore();
    const snapshots = new InMemorySnapshots();
    const kind = kinds[0]!;
    const writer = new DeciderRunner(store, { snapshots: { store: snapshots, key, every: 1 } });
    await runAll(writer, kind, kind.commands.slice(0, 3));
    await writer.snapshotsWritten();
    const stored = snapshots.entries.get(`cart.${kind.id}`)!;
    const errors: unknown[] = [];
    for (const body of [null, 'garbage', { state: { items: 7 }, commands: 'x' }, { commands: [] }]) {
      snapshots.entries.set(`cart.${kind.id}`, { ...stored, body });
      const cold = new DeciderRunner(store, {
        snapshots: { store: snapshots, key, every: 100, onError: (error) => errors.push(error) },
      });
      expect(await cold.state(kind.aggregate, kind.id)).toEqual(await folded(store, kind));
    }
    expect(errors).toHaveLength(4);
  });

  it('a snapshot whose last commit is not in the stream (a stream made again under its name) is ignored', async () => {
    const store = new InMemoryStore();
    const snapshots = new InMemorySnapshots();
    const kind = kinds[0]!;
    const writer = new DeciderRunner(store, { snapshots: { store: snapshots, key, every: 1 } });
    await runAll(writer, kind, kind.commands.slice(0, 3));
    await writer.snapshotsWritten();
    const stored = snapshots.entries.get(`cart.${kind.id}`)!;
    snapshots.entries.set(`cart.${kind.id}`, { ...stored, version: 999 });
    const errors: unknown[] = [];
    const cold = new DeciderRunner(store, {
      snapshots: { store: snapshots, key, every: 100, onError: (error) => errors.push(error) },
    });
    expect(await cold.state(kind.aggregate, kind.id)).toEqual(await folded(store, kind));
    expect(errors).toHaveLength(1);
  });

  it('a snapshot that cannot be written fails no command', async () => {
    const store = new InMemoryStore();
    const snapshots = new InMemorySnapshots();
    snapshots.failWrites = true;
    const errors: unknown[] = [];
    const kind = kinds[3]!;
    const runner = new DeciderRunner(store, {
      snapshots: { store: snapshots, key, every: 1, onError: (error) => errors.push(error) },
    });
    await runAll(runner, kind, kind.commands);
    await runner.snapshotsWritten();
    expect(store.messages).toHaveLength(3);
    expect(errors).toHaveLength(3);
  });
});

describe('forged aggregate snapshots', () => {
  const cart = kinds[0]!;
  const otherCart = { ...cart, id: '1c8d7e6f-5a4b-4c3d-9e2f-1a0b9c8d7e6f' };
  const cartKey = (id: string) => `cart.${id}`;

  /**
   * Cart A with a snapshot and commits after it, cart B with a different snapshot, both written
   * by the service under `key`; what a reader of the bucket could copy or rewrite.
   */
  async function twoCarts() {
    const store = new InMemoryStore();
    const snapshots = new InMemorySnapshots();
    const writer = new DeciderRunner(store, { snapshots: { store: snapshots, key, every: 2 } });
    await runAll(writer, cart, cart.commands.slice(0, 5));
    await runAll(writer, otherCart, cart.commands.slice(0, 2), 100);
    await writer.snapshotsWritten();
    await runAll(writer, cart, cart.commands.slice(5, 6), 5);
    const genuine = snapshots.entries.get(cartKey(cart.id))!;
    const other = snapshots.entries.get(cartKey(otherCart.id))!;
    const commitsOfA = store.messages.filter((m) => m.subject === store.subject('cart', cart.id));
    return { store, snapshots, genuine, other, commitsOfA };
  }

  /** Loads cart A cold from whatever its snapshot entry now holds. */
  async function loadCold(store: InMemoryStore, snapshots: InMemorySnapshots) {
    const errors: unknown[] = [];
    const loads: number[] = [];
    const load = store.load.bind(store);
    store.load = (name, id, after) => (loads.push(after ?? 0), load(name, id, after));
    const cold = new DeciderRunner(store, {
      snapshots: { store: snapshots, key, every: 100, onError: (error) => errors.push(error) },
    });
    const loaded = await cold.state(cart.aggregate, cart.id);
    store.load = load;
    return { loaded, errors, loads };
  }

  const binding = (version: number, id = cart.id) => ({
    aggregate: 'cart',
    subject: `t.cart.${id}`,
    version,
    schema: cart.aggregate.snapshotVersion,
  });

  it('refuses a snapshot with a missing, wrong or foreign MAC, or replayed under another subject or sequence, and folds the events', async () => {
    const { store, snapshots, genuine, other, commitsOfA } = await twoCarts();
    const payloadOfB = (other.body as { payload: string }).payload;
    const later = commitsOfA.at(-1)!.sequence;
    const forgeries = {
      'valid JSON without a MAC': { ...genuine, body: JSON.parse(payloadOfB) as unknown },
      'a wrong MAC': { ...genuine, body: { payload: payloadOfB, mac: 'ab'.repeat(32) } },
      'the MAC of another key': {
        ...genuine,
        body: authenticateSnapshot(randomBytes(32), binding(genuine.version), JSON.parse(payloadOfB)),
      },
      "another subject's snapshot": other,
      'its own snapshot under a later sequence': { ...genuine, version: later },
    };
    const truth = await folded(store, cart);
    for (const [forgery, stored] of Object.entries(forgeries)) {
      snapshots.entries.set(cartKey(cart.id), stored);
      const { loaded, errors, loads } = await loadCold(store, snapshots);
      expect([forgery, loaded]).toEqual([forgery, truth]);
      expect([forgery, loads]).toEqual([forgery, [0]]);
      expect([forgery, errors.map((e) => (e as Error).name)]).toEqual([forgery, ['SnapshotRefusedError']]);
    }
    snapshots.entries.set(cartKey(cart.id), genuine);
    const { loaded, errors, loads } = await loadCold(store, snapshots);
    expect(loaded).toEqual(truth);
    expect(loads).toEqual([genuine.version - 1]);
    expect(errors).toEqual([]);
  });

  it('whatever a snapshot entry is rewritten to, the loaded state is the fold of the events, and only the untouched one is used', async () => {
    const { store, snapshots, genuine, other, commitsOfA } = await twoCarts();
    const truth = await folded(store, cart);
    const body = genuine.body as { payload: string; mac: string };
    const otherBody = other.body as { payload: string; mac: string };
    const sequences = fc.constantFrom(...store.messages.map((m) => m.sequence), 999);
    const flip = (text: string, at: number, to: string) => {
      const i = at % text.length;
      return text.slice(0, i) + to + text.slice(i + 1);
    };
    const tampering = fc.oneof(
      fc.jsonValue().map((json) => ({ ...genuine, body: json })),
      fc
        .tuple(fc.nat(), fc.constantFrom('0', '1', '"', ':', '}', 'x'))
        .map(([at, to]) => ({ ...genuine, body: { ...body, payload: flip(body.payload, at, to) } })),
      fc
        .tuple(fc.nat(), fc.constantFrom('0', '7', 'f'))
        .map(([at, to]) => ({ ...genuine, body: { ...body, mac: flip(body.mac, at, to) } })),
      sequences.map((version) => ({ ...genuine, version })),
      sequences.map((version) => ({ ...other, version })),
      fc
        .tuple(sequences, fc.constantFrom(cart.id, otherCart.id), fc.constantFrom(body, otherBody))
        .map(([version, id, source]) => ({
          ...genuine,
          version,
          body: authenticateSnapshot(randomBytes(32), binding(version, id), JSON.parse(source.payload)),
        })),
      fc.constant(genuine),
    );
    await fc.assert(
      fc.asyncProperty(tampering, async (stored) => {
        snapshots.entries.set(cartKey(cart.id), stored);
        const { loaded, errors, loads } = await loadCold(store, snapshots);
        expect(loaded).toEqual(truth);
        if (JSON.stringify(stored) === JSON.stringify(genuine)) {
          expect(loads).toEqual([genuine.version - 1]);
          expect(errors).toEqual([]);
        } else {
          expect(loads).toEqual([0]);
          expect(errors.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 300 },
    );
    expect(commitsOfA.at(-1)!.sequence).toBeGreaterThan(genuine.version);
  });
});
