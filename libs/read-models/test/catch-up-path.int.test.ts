import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AggregateName, eventCatalogue, NewEvent, systemActor } from '@shop/contracts';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { EventStore, snapshotBucketOf } from '@shop/eventstore';
import { BatchPath, CatchUpReads, ProjectionRunner, recreateSchema, tableChecksums } from '@shop/projections';
import { dropSchema, openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { readModelMigrations } from '../src/read-model-migrations';
import { readModelProjections } from '../src/read-model-projections';

const env = testEnvironment('catchuppath');
const runs = Number(process.env.CATCH_UP_PROPERTY_RUNS ?? 8);
let t: TestEventStore;
let database: DatabaseHandle;

beforeAll(async () => {
  t = await openTestEventStore(env);
  database = createDatabase(env.databaseUrl, { max: 12 });
});
afterAll(async () => {
  await database.close();
  await t.close();
  await dropSchema(env);
});

const users = 3;
const items = 3;
const sessions = 3;
const orders = 2;
const deposits = 2;

/** What a user, or one of their carts, sessions, orders or deposits, records next. */
type Op =
  | { kind: 'register' | 'name' | 'address' | 'walletStart' | 'walletDone' | 'walletFailed'; user: number }
  | { kind: 'sizes'; user: number; first: boolean }
  | { kind: 'remember' | 'close'; user: number }
  | { kind: 'add' | 'remove' | 'restore' | 'link'; user: number; item: number }
  | { kind: 'session'; user: number; session: number }
  | { kind: 'message' | 'rename' | 'deleteSession'; session: number }
  | { kind: 'order'; user: number; order: number }
  | { kind: 'confirm' | 'deliver' | 'cancel' | 'onChain'; order: number }
  | { kind: 'claim'; user: number; deposit: number }
  | { kind: 'credit' | 'creditFailed'; deposit: number };

const user = fc.nat(users - 1);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constantFrom(
        'register' as const,
        'name' as const,
        'address' as const,
        'walletStart' as const,
        'walletDone' as const,
        'walletFailed' as const,
      ),
      user,
    }),
  },
  fc.record({ kind: fc.constant('sizes' as const), user, first: fc.boolean() }),
  fc.record({ kind: fc.constantFrom('remember' as const, 'close' as const), user }),
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constantFrom(
        'add' as const,
        'add' as const,
        'remove' as const,
        'restore' as const,
        'link' as const,
      ),
      user,
      item: fc.nat(items - 1),
    }),
  },
  fc.record({ kind: fc.constant('session' as const), user, session: fc.nat(sessions - 1) }),
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constantFrom(
        'message' as const,
        'message' as const,
        'rename' as const,
        'deleteSession' as const,
      ),
      session: fc.nat(sessions - 1),
    }),
  },
  fc.record({ kind: fc.constant('order' as const), user, order: fc.nat(orders - 1) }),
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constantFrom('confirm' as const, 'deliver' as const, 'cancel' as const, 'onChain' as const),
      order: fc.nat(orders - 1),
    }),
  },
  fc.record({ kind: fc.constant('claim' as const), user, deposit: fc.nat(deposits - 1) }),
  fc.record({
    kind: fc.constantFrom('credit' as const, 'creditFailed' as const),
    deposit: fc.nat(deposits - 1),
  }),
);

const ids = (n: number) => Array.from({ length: n }, () => randomUUID());
const words = () => `w\t${randomBytes(6).toString('hex')}\n"x"\\`;
const progress = {
  phase: 'p',
  payment: { status: 'completed', currency: 'usdc' },
  quote: null,
  deliveryId: null,
};

/**
 * The events of `ops`. Nothing checks them as a decider would: an event for an item never
 * added or an order never created is appended too, and its projection parks the subject, the
 * same way on either path.
 */
function eventsOf(ops: readonly Op[]): [AggregateName, string, NewEvent][] {
  const userIds = ids(users);
  const itemIds = userIds.map(() => ids(items));
  const sessionIds = ids(sessions);
  const orderIds = ids(orders);
  const depositIds = Array.from({ length: deposits }, () => randomBytes(16).toString('hex'));
  const sessionOwner = new Map<number, number>();
  const out: [AggregateName, string, NewEvent][] = [];
  for (const op of ops) {
    const u = 'user' in op ? userIds[op.user]! : '';
    const userEvent = (event: NewEvent) => out.push(['user', u, event]);
    switch (op.kind) {
      case 'register':
        userEvent({ type: 'UserRegistered', data: { providerSubject: `p|${u}`, email: `${u}@example.com` } });
        break;
      case 'name':
        userEvent({ type: 'DisplayNameSet', data: { displayName: words() } });
        break;
      case 'address':
        userEvent({
          type: 'ShippingAddressSaved',
          data: {
            firstName: words(),
            lastName: 'B',
            street: 'S',
            apt: null,
            country: 'US',
            city: 'C',
            state: null,
            zip: '1',
          },
        });
        break;
      case 'sizes':
        userEvent({
          type: 'SizesSaved',
          data: { topsSize: 'M', bottomsSize: '32', footwearSize: '42', firstCompletion: op.first },
        });
        break;
      case 'walletStart':
        userEvent({ type: 'WalletProvisioningStarted', data: { attempt: 1 } });
        break;
      case 'walletDone':
        userEvent({
          type: 'WalletProvisioned',
          data: {
            suiAddress: `0x${randomBytes(32).toString('hex')}`,
            evmAddress: `0x${randomBytes(20).toString('hex')}`,
          },
        });
        break;
      case 'walletFailed':
        userEvent({ type: 'WalletProvisioningFailed', data: { reason: words() } });
        break;
      case 'remember':
        out.push([
          'memory',
          u,
          { type: 'PreferenceRemembered', data: { fact: words(), namespace: 'preferences', source: 'chat' } },
        ]);
        break;
      case 'close':
        userEvent({ type: 'AccountClosed', data: { by: 'operator' } });
        break;
      case 'add': {
        const itemId = itemIds[op.user]![op.item]!;
        out.push([
          'cart',
          u,
          {
            type: 'ItemAdded',
            data: {
              itemId,
              productId: `P${op.item}`,
              productName: words(),
              price: 500 + op.item,
              image: 'https://example.com/p.jpg',
              size: 'M',
              color: 'Blue',
              productUrl: 'https://example.com/p',
              retailer: 'zara',
            },
          },
        ]);
        break;
      }
      case 'remove':
        out.push([
          'cart',
          u,
          { type: 'ItemRemoved', data: { itemId: itemIds[op.user]![op.item]!, reason: 'removed' } },
        ]);
        break;
      case 'restore':
        out.push(['cart', u, { type: 'ItemRestored', data: { itemId: itemIds[op.user]![op.item]! } }]);
        break;
      case 'link':
        out.push([
          'cart',
          u,
          {
            type: 'ItemLinkedOnChain',
            data: { itemId: itemIds[op.user]![op.item]!, objectId: `0x${op.item}` },
          },
        ]);
        break;
      case 'session':
        if (sessionOwner.has(op.session)) break;
        sessionOwner.set(op.session, op.user);
        out.push([
          'session',
          sessionIds[op.session]!,
          { type: 'SessionCreated', data: { userId: u, title: null } },
        ]);
        break;
      case 'message':
        out.push([
          'session',
          sessionIds[op.session]!,
          {
            type: 'ChatMessageAppended',
            data: { messageId: randomUUID(), role: 'user', parts: [{ type: 'text', text: words() }] },
          },
        ]);
        break;
      case 'rename':
        out.push([
          'session',
          sessionIds[op.session]!,
          { type: 'SessionRenamed', data: { title: words(), generated: false } },
        ]);
        break;
      case 'deleteSession':
        out.push(['session', sessionIds[op.session]!, { type: 'SessionDeleted', data: {} }]);
        break;
      case 'order':
        out.push([
          'order',
          orderIds[op.order]!,
          {
            type: 'OrderCreated',
            data: {
              userId: u,
              type: 'checkout',
              cartItemId: itemIds[op.user]![0]!,
              providerOrderId: `po-${op.order}`,
              phase: 'quote',
              item: null,
              payment: null,
              quote: { totalPrice: { amount: '12.5', currency: 'usdc' } },
              walletAddress: null,
              serializedTransaction: null,
            },
          },
        ]);
        break;
      case 'confirm':
        out.push(['order', orderIds[op.order]!, { type: 'OrderPaymentConfirmed', data: progress }]);
        break;
      case 'deliver':
        out.push(['order', orderIds[op.order]!, { type: 'OrderDelivered', data: progress }]);
        break;
      case 'cancel':
        out.push([
          'order',
          orderIds[op.order]!,
          { type: 'OrderCancelled', data: { ...progress, stage: 'payment', reason: words() } },
        ]);
        break;
      case 'onChain':
        out.push([
          'order',
          orderIds[op.order]!,
          { type: 'OrderCheckedOutOnChain', data: { txDigest: words() } },
        ]);
        break;
      case 'claim':
        out.push([
          'deposit',
          depositIds[op.deposit]!,
          {
            type: 'DepositClaimed',
            data: {
              attempt: 1,
              userId: u,
              payerAddress: '0xpayer',
              evmAddress: `0x${randomBytes(20).toString('hex')}`,
              amountMist: '1000',
              usdcAmount: '1.5',
              coinType: 'sui',
              source: 'verify',
              claimedAt: new Date().toISOString(),
            },
          },
        ]);
        break;
      case 'credit':
        out.push([
          'deposit',
          depositIds[op.deposit]!,
          { type: 'DepositCredited', data: { attempt: 1, usdmxAmount: '1.5', evmAddress: '0xe' } },
        ]);
        break;
      case 'creditFailed':
        out.push([
          'deposit',
          depositIds[op.deposit]!,
          { type: 'DepositCreditFailed', data: { attempt: 1, reason: words() } },
        ]);
        break;
    }
  }
  return out;
}

/** Every projection of the read model run by its own runner in `schema` until each reached `last`. */
async function project(
  store: EventStore,
  schema: string,
  last: number,
  settings: { batchSize: number; catchUpBatchSize: number; catchUpReads?: CatchUpReads },
): Promise<Set<BatchPath>> {
  await recreateSchema(database.db, schema, readModelMigrations);
  const paths = new Set<BatchPath>();
  const runners = readModelProjections().map(
    (projection) =>
      new ProjectionRunner({
        store,
        db: database.db,
        databaseUrl: env.databaseUrl,
        schema,
        projection,
        ...settings,
        onBatch: (_outcome, _name, _size, path) => paths.add(path),
      }),
  );
  for (const runner of runners) runner.start();
  try {
    await Promise.all(runners.map((runner) => runner.caughtUp(last)));
  } finally {
    await Promise.all(runners.map((runner) => runner.stop()));
  }
  return paths;
}

const parked = (schema: string) =>
  Promise.all(
    (['parked_subjects', 'parked_events'] as const).map((table) =>
      database.db
        .withSchema(schema)
        .selectFrom(table)
        .select(['projection', 'subject', 'sequence'])
        .orderBy('projection')
        .orderBy('subject')
        .orderBy('sequence')
        .execute(),
    ),
  );

describe('the bulk catch-up path', () => {
  it('leaves the read model the small-batch path leaves, over random histories of every projection, read by each runner or shared', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 8, maxLength: 60 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 40 }),
        async (ops, liveBatch, catchUpBatch, sharedWindow) => {
          run++;
          const stream = `${env.stream}_C${run}`;
          const store = await EventStore.create(t.nc, {
            stream,
            subjectPrefix: `${env.subjectPrefix}c${run}`,
            catalogue: eventCatalogue,
            dataKeys: t.dataKeys,
          });
          await store.provision();
          const small = `${env.schema}_small${run}`;
          const bulk = `${env.schema}_bulk${run}`;
          const shared = `${env.schema}_shared${run}`;
          try {
            for (const [aggregate, id, event] of eventsOf(ops)) {
              await store.append(aggregate, id, [event], {
                commandId: randomUUID(),
                correlationId: 'catch-up-property',
                actor: systemActor,
                expectedSequence: await store.lastSequence(store.subject(aggregate, id)),
              });
            }
            const last = await store.lastStreamSequence();

            const smallPaths = await project(store, small, last, {
              batchSize: liveBatch,
              catchUpBatchSize: 0,
            });
            // Behind by more than four live batches of one: the runners catch up in bulk.
            const bulkPaths = await project(store, bulk, last, {
              batchSize: 1,
              catchUpBatchSize: catchUpBatch,
            });

            // The same, the runners reading the stream once between them, in windows this small.
            const sharedPaths = await project(store, shared, last, {
              batchSize: 1,
              catchUpBatchSize: catchUpBatch,
              catchUpReads: new CatchUpReads(store, { maxMessages: sharedWindow, gatherMs: 5 }),
            });

            expect([...smallPaths]).toEqual(['live']);
            if (last > 4) expect(bulkPaths.has('catch-up')).toBe(true);
            if (last > 4) expect(sharedPaths.has('catch-up')).toBe(true);
            const tables = readModelProjections().flatMap((p) => p.tables);
            const expected = await tableChecksums(database.db, small, tables);
            expect(await tableChecksums(database.db, bulk, tables)).toEqual(expected);
            expect(await tableChecksums(database.db, shared, tables)).toEqual(expected);
            expect(await parked(bulk)).toEqual(await parked(small));
            expect(await parked(shared)).toEqual(await parked(small));
          } finally {
            await store.jsm.streams.delete(stream).catch(() => undefined);
            await store.jsm.streams.delete(`KV_${snapshotBucketOf(stream)}`).catch(() => undefined);
            await database.pool.query(`DROP SCHEMA IF EXISTS ${small} CASCADE`);
            await database.pool.query(`DROP SCHEMA IF EXISTS ${bulk} CASCADE`);
            await database.pool.query(`DROP SCHEMA IF EXISTS ${shared} CASCADE`);
          }
        },
      ),
      { numRuns: runs },
    );
  }, 300_000);
});
