import { randomBytes, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { AckPolicy, ConsumerInfo, DeliverPolicy, NatsConnection, RetentionPolicy, StorageType } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnalytics, RunningAnalytics } from '../../services/analytics/src/analytics-service';
import { analyticsProjections } from '../../services/analytics/src/analytics-projections';
import { startSearchService } from '../../services/search/src/bootstrap';
import { analyticsEnv, loadConfig, searchEnv } from '@shop/config';
import { aggregates, aggregateWildcard, subjectFor, systemActor } from '@shop/contracts';
import {
  connectNats,
  EventStore,
  eventStreamConfig,
  FollowedCommit,
  followCommits,
  foreignDeliveriesDropped,
  StreamDefinitionError,
} from '@shop/eventstore';
import { eventCatalogue } from '@shop/contracts';
import { createLogger } from '@shop/logging';
import { NatsProductSearch } from '@shop/product-search';
import { ProviderClient } from '@shop/provider';
import { startSuiSandbox, SuiSandbox } from '@shop/sandbox-sui';
import { PrivateNats, startPrivateNats } from '@shop/testing';
import { checkpoints, depositSecret, eventually, Stack, TestClient, webhookSecret } from './harness';

/**
 * The shipped NATS configuration (infra/nats/nats-server.conf) on a private server: who may
 * connect, who may append to which aggregate, who may delete the stream, and that the stack
 * still works with each process under its own user.
 */
const shippedConfig = resolve(__dirname, '../../infra/nats/nats-server.conf');
const users = ['gateway', 'search', 'projector', 'analytics', 'replay', 'chain-indexer', 'operator'] as const;
type User = (typeof users)[number];
// nats-server parses a variable's value as configuration: a password starting with a digit would
// be read as a number, so each starts with a letter (as docs/operations.md tells operators).
const passwords = Object.fromEntries(users.map((u) => [u, `p${randomBytes(16).toString('hex')}`])) as Record<
  User,
  string
>;
const serverEnv = Object.fromEntries(
  users.map((u) => [`NATS_${u.toUpperCase().replace('-', '_')}_PASSWORD`, passwords[u]]),
);
const credentialOf = (user: User) => ({ NATS_USER: user, NATS_PASSWORD: passwords[user] });

const USDC = '0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC';
const merchant = Ed25519Keypair.generate().toSuiAddress();

let nats: PrivateNats;
let sui: SuiSandbox;
let stack: Stack;
let searchUrl: string;
let closeSearch: () => Promise<void>;
let analytics: RunningAnalytics;
const connections: NatsConnection[] = [];

const connectAs = async (user: User) => {
  const nc = await connectNats({ NATS_URL: nats.url, ...credentialOf(user) }, `probe-${user}`);
  connections.push(nc);
  return nc;
};

/** A hand-made commit, as an attacker would write it: what matters is whether the server stores it. */
const forgedCommit = (type: string, data: Record<string, unknown>) =>
  new TextEncoder().encode(
    JSON.stringify({
      commandId: randomUUID(),
      events: [{ id: randomUUID(), type, version: 1, data, occurredAt: new Date().toISOString() }],
    }),
  );

/** Appends `payload` to `subject` as the event store does; the error code, or 'stored'. */
async function tryAppend(nc: NatsConnection, subject: string, payload: Uint8Array): Promise<string> {
  try {
    await nc.jetstream().publish(subject, payload);
    return 'stored';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

async function tryAdmin(nc: NatsConnection, action: 'delete' | 'purge'): Promise<string> {
  try {
    const jsm = await nc.jetstreamManager({ timeout: 3000 });
    await (action === 'delete' ? jsm.streams.delete('SHOP') : jsm.streams.purge('SHOP'));
    return 'done';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

/** Writes an aggregate's snapshot key as the decider runner does; the error code, or 'stored'. */
async function tryWriteSnapshot(nc: NatsConnection, key: string): Promise<string> {
  try {
    const kv = await nc.jetstream().views.kv('SHOP_snapshots', { bindOnly: true });
    await kv.put(key, JSON.stringify({ schema: 1, version: 1, body: { state: {} } }));
    return 'stored';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

const lastSequence = async () => (await stack.store()).lastStreamSequence();

/** The outcome of a JetStream API call: its error code (or message), or 'done'. */
async function outcomeOf(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return 'done';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

/** The durable consumers of each process running here, one of each kind, as their owners named them. */
const ownedConsumers: Record<string, string> = {
  gateway: 'gateway_reaction_wallet-provisioning',
  projector: 'projector_projection_users',
  search: 'search_projection_payment_transactions',
  analytics: 'analytics_projection_analytics_funnel',
};
const serviceUsers = users.filter((u) => u !== 'operator');
const othersConsumers = (user: User) =>
  Object.entries(ownedConsumers)
    .filter(([owner]) => owner !== user)
    .map(([, name]) => name);

/** The operator's view of a consumer: how far it is acknowledged and what it has delivered. */
async function consumerState(name: string) {
  const jsm = await (await connectAs('operator')).jetstreamManager();
  const info = await jsm.consumers.info('SHOP', name);
  return { ackFloor: info.ack_floor.stream_seq, delivered: info.delivered.stream_seq, config: info.config };
}

beforeAll(async () => {
  nats = await startPrivateNats({ configFile: shippedConfig, env: serverEnv });
  sui = await startSuiSandbox({ port: 0 });
  stack = await Stack.start('natsauth', {
    vars: {
      NATS_URL: nats.url,
      EVENT_STREAM: 'SHOP',
      EVENT_SUBJECT_PREFIX: 'shop',
      // The harness's own reads and clean-up; every service below gets its own user instead.
      ...credentialOf('operator'),
      CHAIN_RPC_URL: sui.url,
      CHAIN_COIN_TYPE: USDC,
      RECONCILE_INTERVAL_MS: '500',
      // Snapshots every other commit, so the flows below write and read them under these users.
      AGGREGATE_SNAPSHOT_EVERY: '2',
    },
    projector: false,
    gateway: false,
  });
  await stack.startProjector(credentialOf('projector'));
  stack.url = await stack.startGateway(credentialOf('gateway'));
  stack.provider.setWebhookTarget(`${stack.url}/api/webhooks/provider`, webhookSecret);
  const search = await startSearchService(
    loadConfig(searchEnv, {
      ...stack.serviceEnv(credentialOf('search')),
      PORT: '0',
      SEARCH_SCHEMA: `${stack.env.schema}_search`,
      CHAIN_MERCHANT_ADDRESS: merchant,
      CHAIN_PAYMENT_AMOUNT_MIST: '1000000',
      DEPOSIT_WEBHOOK_SECRET: depositSecret,
      BACKEND_URL: stack.url,
    }),
    createLogger('search', 'silent'),
    { rpcGracePeriodMs: 0 },
  );
  searchUrl = search.url;
  closeSearch = () => search.app.close();
  analytics = await startAnalytics(
    loadConfig(analyticsEnv, {
      ...stack.serviceEnv(credentialOf('analytics')),
      PORT: '0',
      ANALYTICS_SCHEMA: `${stack.env.schema}_analytics`,
    }),
    createLogger('analytics', 'silent'),
  );
}, 90_000);

afterAll(async () => {
  for (const nc of connections) await nc.close().catch(() => undefined);
  await analytics?.stop();
  await closeSearch?.();
  await stack?.stop();
  await sui?.close();
  await nats?.close();
});

describe('the shipped NATS configuration', () => {
  it('refuses a client without a credential, or with a wrong password', async () => {
    await expect(connectNats(nats.url, 'anonymous')).rejects.toMatchObject({
      code: 'AUTHORIZATION_VIOLATION',
    });
    await expect(
      connectNats({ NATS_URL: nats.url, NATS_USER: 'gateway', NATS_PASSWORD: passwords.search }, 'guess'),
    ).rejects.toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
  });

  it('gives the read sides no publish right on any event subject, and no right to delete or purge the stream', async () => {
    const before = await lastSequence();
    for (const user of ['projector', 'analytics', 'replay'] as const) {
      const nc = await connectAs(user);
      for (const aggregate of aggregates) {
        const outcome = await tryAppend(
          nc,
          subjectFor('shop', aggregate, randomUUID()),
          forgedCommit('Forged', {}),
        );
        expect([user, aggregate, outcome]).toEqual([user, aggregate, 'PERMISSIONS_VIOLATION']);
      }
      expect([user, await tryAdmin(nc, 'delete'), await tryAdmin(nc, 'purge')]).toEqual([
        user,
        'PERMISSIONS_VIOLATION',
        'PERMISSIONS_VIOLATION',
      ]);
    }
    expect(await lastSequence()).toBe(before);
  });

  it("refuses a reader's consumer that would deliver the stream's messages onto an event subject", async () => {
    const before = await lastSequence();
    const jsm = await (await connectAs('projector')).jetstreamManager({ timeout: 3000 });
    // The ephemeral read every user may create (a durable of a name not its own is refused by its rights).
    await expect(
      jsm.consumers.add('SHOP', {
        deliver_subject: subjectFor('shop', 'deposit', randomUUID()),
        ack_policy: AckPolicy.None,
      }),
    ).rejects.toThrow(/consumer deliver subject forms a cycle/);
    expect(await lastSequence()).toBe(before);
  });

  it('lets the search service append payment records only: no DepositClaimed, no order event', async () => {
    const nc = await connectAs('search');
    const deposit = forgedCommit('DepositClaimed', { userId: randomUUID(), amount: '1000000000' });
    expect(await tryAppend(nc, subjectFor('shop', 'deposit', randomUUID()), deposit)).toBe(
      'PERMISSIONS_VIOLATION',
    );
    const paid = forgedCommit('OrderPaymentConfirmed', {});
    expect(await tryAppend(nc, subjectFor('shop', 'order', randomUUID()), paid)).toBe(
      'PERMISSIONS_VIOLATION',
    );
    for (const aggregate of aggregates.filter((a) => a !== 'payment')) {
      expect([aggregate, await tryAppend(nc, subjectFor('shop', aggregate, randomUUID()), paid)]).toEqual([
        aggregate,
        'PERMISSIONS_VIOLATION',
      ]);
    }
  });

  it("refuses a forged DepositClaimed through every credential but the gateway's", async () => {
    const before = await lastSequence();
    for (const user of users.filter((u) => u !== 'gateway' && u !== 'operator')) {
      const nc = await connectAs(user);
      const forged = forgedCommit('DepositClaimed', { userId: randomUUID(), amount: '1000000000' });
      expect([user, await tryAppend(nc, subjectFor('shop', 'deposit', randomUUID()), forged)]).toEqual([
        user,
        'PERMISSIONS_VIOLATION',
      ]);
    }
    expect(await lastSequence()).toBe(before);
  });

  it('lets only the operator delete or purge the stream', async () => {
    for (const user of users.filter((u) => u !== 'operator')) {
      const nc = await connectAs(user);
      expect([user, await tryAdmin(nc, 'delete'), await tryAdmin(nc, 'purge')]).toEqual([
        user,
        'PERMISSIONS_VIOLATION',
        'PERMISSIONS_VIOLATION',
      ]);
    }
  });

  it('runs the deposit flow end to end, each service under its own user', async () => {
    const shopper = await stack.shopper({ funds: '0' });
    const digest = sui.createPayment({
      payer: shopper.sui!,
      receiver: merchant,
      amountMist: 2_500_000n,
      coinType: USDC,
      nonce: randomUUID(),
    });
    const verified = await new TestClient(searchUrl).request('POST', '/api/payment/verify', {
      txHash: digest,
      userId: shopper.userId,
    });
    expect([verified.status, (verified.json.data as { status: string }).status], verified.text).toEqual([
      200,
      'SUCCESS',
    ]);
    const provider = new ProviderClient({
      baseUrl: stack.provider.url,
      apiKey: stack.provider.apiKey,
      timeoutMs: 5000,
    });
    const balances = await provider.getBalances(shopper.evm!, { tokens: ['usdc'], chains: ['base-sepolia'] });
    expect(Number(balances.find((b) => b.symbol === 'usdc')?.amount)).toBeCloseTo(2.5, 6);
    const orders = await shopper.client.request('GET', '/api/orders?type=deposit');
    expect(orders.json.orders).toEqual([
      expect.objectContaining({ type: 'deposit', status: 'delivered', providerOrderId: digest }),
    ]);
  });

  it('runs the checkout flow end to end, each service under its own user', async () => {
    const { client, evm } = await stack.shopper({ funds: '500' });
    const item = await client.request('POST', '/api/cart', {
      productId: 'B0NATS0001',
      productName: 'Rain jacket',
      price: 8999,
      image: 'https://images.example.com/1.jpg',
      productUrl: 'https://shop.example.com/dp/1',
      retailer: 'Example Outfitters',
    });
    expect(item.status).toBe(201);
    const checkout = await client.request('POST', '/api/checkout', { cartItemId: item.json.id });
    expect([checkout.status, checkout.json.walletAddress]).toEqual([201, evm]);
    stack.provider.approve(checkout.json.providerOrderId as string);
    const delivered = await eventually(
      () => client.request('GET', `/api/orders/${checkout.json.orderId as string}`),
      (r) => r.json.status === 'delivered',
    );
    expect(delivered.json.status).toBe('delivered');
  });

  it("lets the gateway's user ask the search service over NATS, and the search service's user answer", async () => {
    const search = new NatsProductSearch({
      nc: await connectAs('gateway'),
      subjectPrefix: 'shop',
      timeoutMs: 5000,
    });
    // The service's own answer (this stack runs it without a scraping platform), not a timeout or a refusal.
    await expect(search.product('B0NATS0404')).rejects.toMatchObject({ code: 'SCRAPER_NOT_CONFIGURED' });
  });

  it('lets the analytics service follow the stream under its own user', async () => {
    const head = await lastSequence();
    const positions = await eventually(
      () => checkpoints(stack.database, `${stack.env.schema}_analytics`),
      (p) => analyticsProjections.every((projection) => (p[projection.name] ?? 0) >= head),
      20_000,
    );
    for (const projection of analyticsProjections)
      expect(positions[projection.name]).toBeGreaterThanOrEqual(head);
  });

  it('lets each writer keep snapshots of its own aggregates only, and the read sides none', async () => {
    const gateway = await connectAs('gateway');
    expect(await tryWriteSnapshot(gateway, `user.${randomUUID()}`)).toBe('stored');
    const search = await connectAs('search');
    expect(await tryWriteSnapshot(search, `payment.${randomUUID()}`)).toBe('stored');
    for (const aggregate of aggregates.filter((a) => a !== 'payment')) {
      expect([aggregate, await tryWriteSnapshot(search, `${aggregate}.${randomUUID()}`)]).toEqual([
        aggregate,
        'PERMISSIONS_VIOLATION',
      ]);
    }
    for (const user of ['projector', 'analytics', 'replay', 'chain-indexer'] as const) {
      const nc = await connectAs(user);
      expect([user, await tryWriteSnapshot(nc, `deposit.${randomUUID()}`)]).toEqual([
        user,
        'PERMISSIONS_VIOLATION',
      ]);
    }
  });

  it('lets no service user create or update a stream: no bucket that republishes into the event stream, no change to the event stream', async () => {
    const before = await lastSequence();
    const shop = eventStreamConfig({ stream: 'SHOP', subjectPrefix: 'shop', replicas: 1 });
    for (const user of serviceUsers) {
      const jsm = await (await connectAs(user)).jetstreamManager({ timeout: 3000 });
      const republishing = (name: string) => ({
        name,
        subjects: [`$KV.${name.slice(3)}.>`],
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        max_msgs_per_subject: 1,
        republish: {
          src: `$KV.${name.slice(3)}.payment.*`,
          dest: subjectFor('shop', 'deposit', randomUUID()),
        },
      });
      const probes = {
        'snapshot bucket with republish': await outcomeOf(() =>
          jsm.streams.add(republishing('KV_SHOP_snapshots')),
        ),
        'another bucket with republish': await outcomeOf(() =>
          jsm.streams.add(republishing('KV_SHOP_other')),
        ),
        'snapshot bucket updated to republish': await outcomeOf(() =>
          jsm.streams.update('KV_SHOP_snapshots', republishing('KV_SHOP_snapshots')),
        ),
        'event stream max_msgs=1': await outcomeOf(() =>
          jsm.streams.update('SHOP', { ...shop, max_msgs: 1 }),
        ),
        'event stream sealed': await outcomeOf(() =>
          jsm.streams.update('SHOP', { ...shop, sealed: true } as typeof shop),
        ),
        'event stream created again': await outcomeOf(() => jsm.streams.add(shop)),
      };
      expect([user, probes]).toEqual([
        user,
        Object.fromEntries(Object.keys(probes).map((probe) => [probe, 'PERMISSIONS_VIOLATION'])),
      ]);
    }
    const jsm = await (await connectAs('operator')).jetstreamManager();
    const bucket = await jsm.streams.info('KV_SHOP_snapshots');
    expect([bucket.config.republish, (await jsm.streams.info('SHOP')).config.max_msgs]).toEqual([
      undefined,
      -1,
    ]);
    expect(await lastSequence()).toBe(before);
  });

  it("lets no service user pull, acknowledge, read, change, delete or re-create another process's consumer", async () => {
    for (const user of serviceUsers) {
      const nc = await connectAs(user);
      const jsm = await nc.jetstreamManager({ timeout: 3000 });
      for (const consumer of othersConsumers(user)) {
        const before = await consumerState(consumer);
        const probes = {
          pull: await outcomeOf(() =>
            nc.request(
              `$JS.API.CONSUMER.MSG.NEXT.SHOP.${consumer}`,
              JSON.stringify({ batch: 10, no_wait: true }),
              {
                timeout: 3000,
              },
            ),
          ),
          info: await outcomeOf(() => jsm.consumers.info('SHOP', consumer)),
          update: await outcomeOf(() => jsm.consumers.update('SHOP', consumer, { max_ack_pending: 1 })),
          're-create': await outcomeOf(() =>
            jsm.consumers.add('SHOP', {
              durable_name: consumer,
              ack_policy: AckPolicy.None,
              deliver_policy: DeliverPolicy.New,
              filter_subject: before.config.filter_subject,
            }),
          ),
          delete: await outcomeOf(() => jsm.consumers.delete('SHOP', consumer)),
        };
        expect([user, consumer, probes]).toEqual([
          user,
          consumer,
          {
            pull: 'PERMISSIONS_VIOLATION',
            info: 'PERMISSIONS_VIOLATION',
            update: 'PERMISSIONS_VIOLATION',
            're-create': 'PERMISSIONS_VIOLATION',
            delete: 'PERMISSIONS_VIOLATION',
          },
        ]);
        // An ephemeral create naming a durable is refused by the server itself.
        await expect(
          nc
            .request(
              '$JS.API.CONSUMER.CREATE.SHOP',
              JSON.stringify({ stream_name: 'SHOP', config: { durable_name: consumer, ack_policy: 'none' } }),
              { timeout: 3000 },
            )
            .then((reply) => reply.string()),
        ).resolves.toMatch(/consumer expected to be ephemeral but a durable name was set in request/);
        // An acknowledgement of its next messages, as a taker would send it, is refused too.
        for (let sequence = before.ackFloor + 1; sequence <= before.ackFloor + 5; sequence++)
          nc.publish(`$JS.ACK.SHOP.${consumer}.1.${sequence}.${sequence}.0.0`);
        await nc.flush();
        const after = await consumerState(consumer);
        expect([user, consumer, after.config]).toEqual([user, consumer, before.config]);
      }
    }
    await eventually(
      async () => nats.output(),
      (output) =>
        serviceUsers.every((user) =>
          othersConsumers(user).every((consumer) =>
            output.includes(`Publish Violation - User "${user}", Subject "$JS.ACK.SHOP.${consumer}.1.`),
          ),
        ),
    );
  });

  it("lets each read side announce only its own projections' checkpoints, so none can end another's read-your-writes wait", async () => {
    const listener = await connectAs('gateway');
    const heard: string[] = [];
    const subscription = listener.subscribe('_projections.shop.*', {
      callback: (_error, message) => heard.push(`${message.subject} ${message.string()}`),
    });
    await listener.flush();
    const forged = {
      gateway: 'cart_items',
      search: 'cart_items',
      projector: 'payment_transactions',
      analytics: 'orders',
      replay: 'users',
      'chain-indexer': 'cart_items',
    } as const;
    for (const [user, projection] of Object.entries(forged)) {
      const nc = await connectAs(user as User);
      nc.publish(`_projections.shop.${projection}`, '999999999');
      await nc.flush();
    }
    await eventually(
      async () => nats.output(),
      (output) =>
        Object.entries(forged).every(([user, projection]) =>
          output.includes(`Publish Violation - User "${user}", Subject "_projections.shop.${projection}"`),
        ),
    );
    await listener.flush();
    subscription.unsubscribe();
    expect(heard.filter((line) => line.endsWith(' 999999999'))).toEqual([]);
  });

  it("lets no service user push the stream onto another process's subject", async () => {
    const rpc = '_rpc.shop.search.product';
    for (const user of serviceUsers) {
      const jsm = await (await connectAs(user)).jetstreamManager({ timeout: 3000 });
      // Under another process's name: refused by the server.
      for (const consumer of othersConsumers(user)) {
        expect([
          user,
          consumer,
          await outcomeOf(() =>
            jsm.consumers.add('SHOP', {
              durable_name: consumer,
              deliver_subject: rpc,
              ack_policy: AckPolicy.Explicit,
            }),
          ),
        ]).toEqual([user, consumer, 'PERMISSIONS_VIOLATION']);
      }
      // As the ephemeral read every user may make (nats-server 2.9 does not check a deliver
      // subject against its creator's rights): the search service takes nothing from it, it
      // neither handles nor acknowledges a stored message pushed onto its request subject.
      const created = await jsm.consumers.add('SHOP', {
        deliver_subject: rpc,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.Last,
        inactive_threshold: 5_000_000_000,
      });
      const pushed = await eventually(
        () => consumerState(created.name),
        (state) => state.delivered > 0,
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect([user, (await consumerState(created.name)).ackFloor]).toEqual([user, 0]);
      expect(pushed.delivered).toBeGreaterThan(0);
      await (
        await connectAs('operator')
      )
        .jetstreamManager()
        .then((operator) => operator.consumers.delete('SHOP', created.name));
    }

    // Onto a process's own inbox, learned from the consumer list (every user's right), as the
    // gateway follows its commits: the follower takes only what its own consumer delivers, and
    // hears exactly the commits of its subjects while every service user pushes the whole stream
    // onto it, the ones stored after it started included.
    const reader = await EventStore.create(await connectAs('gateway'), {
      stream: 'SHOP',
      subjectPrefix: 'shop',
      catalogue: eventCatalogue,
      owner: 'gateway',
      logger: { warn() {} },
    });
    const carts = aggregateWildcard('shop', 'cart');
    const heard: FollowedCommit[] = [];
    let following = false;
    const follower = followCommits(reader, carts, {
      commit: (commit) => heard.push(commit),
      following: () => (following = true),
      interrupted: () => (following = false),
    });
    const pushes: string[] = [];
    const operator = await (await connectAs('operator')).jetstreamManager();
    try {
      expect(await eventually(async () => following, Boolean)).toBe(true);
      const droppedBefore = foreignDeliveriesDropped().get('follower') ?? 0;
      for (const user of serviceUsers.filter((u) => u !== 'gateway')) {
        const jsm = await (await connectAs(user)).jetstreamManager({ timeout: 3000 });
        const listed: ConsumerInfo[] = [];
        for await (const info of jsm.consumers.list('SHOP')) listed.push(info);
        const target = listed.find(
          (c) => c.config.filter_subject === carts && c.config.deliver_subject?.startsWith('_INBOX_gateway.'),
        );
        expect([user, target?.config.deliver_subject]).toEqual([user, expect.any(String)]);
        const created = await jsm.consumers.add('SHOP', {
          deliver_subject: target!.config.deliver_subject!,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          inactive_threshold: 5_000_000_000,
        });
        pushes.push(created.name);
      }
      // Other aggregates' commits (a shopper signing up) and the followed ones, while they push.
      const store = await stack.store();
      const start = await lastSequence();
      await stack.shopper({ wallet: false });
      for (let i = 0; i < 3; i++) {
        await store.append(
          'cart',
          randomUUID(),
          [
            {
              type: 'ItemAdded',
              data: {
                itemId: randomUUID(),
                productId: `push-${i}`,
                productName: 'Jacket',
                price: 100,
                image: 'https://example.com/i.jpg',
                size: 'M',
                color: 'Red',
                productUrl: 'https://example.com/p',
                retailer: 'Example',
              },
            },
          ],
          { commandId: randomUUID(), correlationId: 'push-probe', actor: systemActor, expectedSequence: 0 },
        );
        await stack.shopper({ wallet: false });
      }
      const end = await lastSequence();
      const followed: FollowedCommit[] = [];
      for await (const raw of store.readRaw(start + 1, await store.lastSequence(carts), carts))
        followed.push({ subject: raw.subject, sequence: raw.sequence });
      expect(followed).toHaveLength(3);
      // Every push has sent the whole stream (as the operator sees it: a push's creator may not
      // ask about it by name), and each of its messages reached the follower.
      const dropped = () => (foreignDeliveriesDropped().get('follower') ?? 0) - droppedBefore;
      const sent = await eventually(
        async () => Promise.all(pushes.map((name) => operator.consumers.info('SHOP', name))),
        (infos) =>
          infos.every((i) => i.num_pending === 0 && i.delivered.stream_seq >= end) &&
          dropped() === infos.reduce((sum, i) => sum + i.delivered.consumer_seq, 0),
        15_000,
      );
      expect(sent.map((i) => i.num_pending === 0 && i.delivered.stream_seq >= end)).toEqual(
        sent.map(() => true),
      );
      const delivered = sent.reduce((sum, i) => sum + i.delivered.consumer_seq, 0);
      expect(delivered).toBeGreaterThan(0);
      expect(dropped()).toBe(delivered);
      // None acknowledged, nothing heard but the followed commits.
      expect(sent.map((i) => i.ack_floor.stream_seq)).toEqual(sent.map(() => 0));
      expect(heard.filter((c) => c.sequence > start)).toEqual(followed);
      expect(heard.every((c) => c.subject.startsWith('shop.cart.'))).toBe(true);
      expect(following).toBe(true);
    } finally {
      await follower.stop();
      for (const name of pushes) await operator.consumers.delete('SHOP', name).catch(() => undefined);
    }
  });

  it('runs no service on a stream or snapshot bucket that differs from its definition, naming each difference', async () => {
    const operator = await (await connectAs('operator')).jetstreamManager();
    const shop = await operator.streams.info('SHOP');
    const gateway = await EventStore.create(await connectAs('gateway'), {
      stream: 'SHOP',
      subjectPrefix: 'shop',
      catalogue: eventCatalogue,
      owner: 'gateway',
    });
    await gateway.verifyStream();
    await gateway.snapshots.verify();
    try {
      await operator.streams.update('SHOP', {
        ...shop.config,
        max_msgs: 1_000_000_000,
        max_age: 86_400_000_000_000,
      });
      // A bucket made again with a republish, as a service user could once make it while it was missing.
      await operator.streams.delete('KV_SHOP_snapshots');
      await operator.streams.add({
        name: 'KV_SHOP_snapshots',
        subjects: ['$KV.SHOP_snapshots.>'],
        max_msgs_per_subject: 1,
        republish: {
          src: '$KV.SHOP_snapshots.payment.probe',
          dest: subjectFor('shop', 'deposit', randomUUID()),
        },
      });
      const stream = await gateway.verifyStream().catch((error: unknown) => error);
      expect(stream).toBeInstanceOf(StreamDefinitionError);
      expect((stream as StreamDefinitionError).differences).toEqual([
        'max_age: 86400000000000 (wanted 0)',
        'max_msgs: 1000000000 (wanted -1)',
      ]);
      const snapshots = await gateway.snapshots.verify().catch((error: unknown) => error);
      expect((snapshots as StreamDefinitionError).differences).toEqual([
        expect.stringMatching(
          /^republish: \{"src":"\$KV\.SHOP_snapshots\.payment\.probe","dest":"shop\.deposit\./,
        ),
      ]);
    } finally {
      // The operator step puts both back: the stream updated, the bucket made again.
      await (await stack.store()).provision();
    }
    await gateway.verifyStream();
    await gateway.snapshots.verify();
  });

  it('lets a projector left behind catch up through the bulk path under its own user', async () => {
    await stack.stopProjector();
    const store = await stack.store();
    const ids = Array.from({ length: 60 }, () => randomUUID());
    for (const id of ids) {
      await store.append(
        'user',
        id,
        [{ type: 'UserRegistered', data: { providerSubject: `dev|${id}`, email: null } }],
        {
          commandId: randomUUID(),
          correlationId: 'nats-catch-up',
          actor: { kind: 'system', id: null },
          expectedSequence: 0,
        },
      );
    }
    const head = await lastSequence();
    // Behind by far more than four live batches: every projection starts on the bulk path.
    const projector = await stack.startProjector({
      ...credentialOf('projector'),
      PROJECTOR_BATCH_SIZE: '5',
      PROJECTOR_CATCH_UP_BATCH_SIZE: '20',
    });
    const positions = await eventually(
      () => checkpoints(stack.database, stack.env.schema),
      (p) => (p.users ?? 0) >= head,
      30_000,
    );
    expect(positions.users).toBeGreaterThanOrEqual(head);
    const usersBatches = (await projector.metrics.projectionBatches.get()).values.filter(
      (v) => v.labels.projection === 'users',
    );
    expect(
      usersBatches.filter((v) => v.labels.path === 'catch-up').reduce((sum, v) => sum + v.value, 0),
    ).toBeGreaterThan(0);
    const { count } = await stack.database.db
      .withSchema(stack.env.schema)
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('user_id', 'in', ids)
      .executeTakeFirstOrThrow();
    expect(Number(count)).toBe(ids.length);
  });

  it('refused only the probes above, nothing the services themselves do', () => {
    const refusals = nats
      .output()
      .split('\n')
      .filter((line) => / Violation /.test(line));
    expect(refusals.filter((line) => /"[^"]*:probe-/.test(line)).length).toBeGreaterThan(0);
    expect(refusals.filter((line) => !/"[^"]*:probe-/.test(line))).toEqual([]);
  });
});
