import { randomUUID } from 'node:crypto';
import { Kysely } from 'kysely';
import { headers as natsHeaders, NatsConnection, StreamConfig } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCatalogue, NewEvent, subjectFor, systemActor } from '@shop/contracts';
import { createDatabase, DatabaseHandle } from '@shop/db';
import {
  buildCommit,
  connectNats,
  encodeCommit,
  EventStore,
  eventStreamConfig,
  layoutMigrationNames,
  migrateSubjectLayout,
  provisionEventStream,
  StreamDefinitionError,
  streamDifferences,
  StreamLayoutError,
} from '@shop/eventstore';
import { ProjectionRunner, projectionUnits, rebuildProjections, tableChecksums } from '@shop/projections';
import { testEnvironment } from '@shop/testing';
import { cartItemsProjection } from '../src/cart/cart-items.projection';
import { migrateReadModel, readModelMigrations } from '../src/read-model-migrations';

const env = testEnvironment('layoutmove');
const params = { stream: env.stream, subjectPrefix: env.subjectPrefix, replicas: 1 };
const gapped = { stream: `${env.stream}_GAP`, subjectPrefix: `${env.subjectPrefix}gap`, replicas: 1 };
let nc: NatsConnection;
let database: DatabaseHandle;

/** The definition a build of the first layout verified the stream against: every subject, no description. */
const firstLayoutDefinition = (of = params): StreamConfig => {
  const { description: _layout, ...rest } = eventStreamConfig(of);
  return { ...rest, subjects: [`${of.subjectPrefix}.>`] } as StreamConfig;
};

beforeAll(async () => {
  nc = await connectNats(env.natsUrl, `test-${env.id}`);
  database = createDatabase(env.databaseUrl, { max: 4 });
});
afterAll(async () => {
  const jsm = await nc.jetstreamManager();
  for (const stream of [
    env.stream,
    layoutMigrationNames(params).temporaryStream,
    `KV_${env.stream}_snapshots`,
    gapped.stream,
    layoutMigrationNames(gapped).temporaryStream,
  ])
    await jsm.streams.delete(stream).catch(() => undefined);
  await nc.drain();
  await database.close();
});

const product = (key: string) => ({
  productId: `P-${key}`,
  productName: `Product ${key}`,
  price: 1999,
  image: `https://images.example.com/${key}.jpg`,
  size: 'M',
  color: 'blue',
  productUrl: `https://shop.example.com/dp/${key}`,
  retailer: 'Example Outfitters',
});

interface Written {
  sequence: number;
  cartId: string;
  commandId: string;
  types: string[];
}

/** Appends the way the first layout's event store did: `<prefix>.cart.<id>`, a msg id, the subject's last sequence. */
async function writeFirstLayout(
  carts: number,
  commitsPerCart: number,
  prefix = env.subjectPrefix,
): Promise<Written[]> {
  const js = nc.jetstream();
  const written: Written[] = [];
  const last = new Map<string, number>();
  const items = new Map<string, string[]>();
  const ids = Array.from({ length: carts }, () => randomUUID());
  for (let round = 0; round < commitsPerCart; round++) {
    for (const cartId of ids) {
      const held = items.get(cartId) ?? [];
      const events: NewEvent[] =
        round % 3 === 2 && held.length > 0
          ? [{ type: 'ItemRemoved', data: { itemId: held.shift()!, reason: 'removed' } }]
          : [{ type: 'ItemAdded', data: { ...product(`${cartId}-${round}`), itemId: randomUUID() } }];
      if (events[0]!.type === 'ItemAdded') held.push((events[0]!.data as { itemId: string }).itemId);
      items.set(cartId, held);
      const commandId = randomUUID();
      const commit = buildCommit(eventCatalogue, cartId, events, {
        commandId,
        correlationId: 'first-layout',
        actor: systemActor,
      });
      const ack = await js.publish(`${prefix}.cart.${cartId}`, encodeCommit(commit), {
        msgID: commandId,
        expect: { lastSubjectSequence: last.get(cartId) ?? 0 },
        headers: natsHeaders(),
      });
      last.set(cartId, ack.seq);
      written.push({ sequence: ack.seq, cartId, commandId, types: events.map((e) => e.type) });
    }
  }
  return written;
}

/** Each step's run stopped once, right after it (a crash between steps): the next run carries on. */
async function migrateWithCrashes(): Promise<string[]> {
  const crashAfter = new Set(['1/5', '2/5', '3/5', '4/5']);
  const lines: string[] = [];
  for (let runs = 0; runs < 10; runs++) {
    try {
      const outcome = await migrateSubjectLayout(nc, params, (line) => {
        lines.push(line);
        const step = line.slice(0, 3);
        if (crashAfter.delete(step)) throw new Error(`crash after ${step}`);
      });
      expect(outcome.renumbered).toBe(false);
      return lines;
    } catch (error) {
      if (!String(error).includes('crash after')) throw error;
    }
  }
  throw new Error('the migration did not finish');
}

describe('moving an event stream to the partitioned subject layout (npm run migrate-layout)', () => {
  it('keeps every event once, in order, at its sequence, under the new subjects; a build of either layout refuses the other', async () => {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add(firstLayoutDefinition());
    const written = await writeFirstLayout(12, 5);

    // Against the first layout's stream, this build neither starts nor provisions over it.
    const store = await EventStore.create(nc, {
      stream: env.stream,
      subjectPrefix: env.subjectPrefix,
      catalogue: eventCatalogue,
    });
    const refusal = await store.verifyStream().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(StreamDefinitionError);
    expect(String(refusal)).toMatch(/description: .*migrate-layout/);
    await expect(provisionEventStream(nc, params)).rejects.toBeInstanceOf(StreamLayoutError);

    const lines = await migrateWithCrashes();
    expect(lines.map((line) => line.slice(0, 3))).toEqual(['1/5', '2/5', '2/5', '3/5', '3/5', '4/5', '5/5']);
    expect((await migrateSubjectLayout(nc, params)).steps).toEqual([
      expect.stringMatching(/already has the layout/),
    ]);

    // This build binds; one of the first layout finds the stream differs from its definition.
    await store.verifyStream();
    const info = await jsm.streams.info(env.stream);
    expect(streamDifferences(info.config, firstLayoutDefinition())).toEqual([
      expect.stringMatching(/^subjects: /),
    ]);
    expect(await jsm.streams.info(layoutMigrationNames(params).temporaryStream).catch(() => null)).toBeNull();

    const stored = [];
    for await (const commit of store.read()) stored.push(commit);
    expect(info.state.messages).toBe(written.length);
    expect(
      stored.map((events) => ({
        sequence: events[0]!.sequence,
        cartId: events[0]!.aggregateId,
        commandId: events[0]!.commandId,
        types: events.map((e) => e.type),
      })),
    ).toEqual(written);
    expect(stored.map((events) => events[0]!.subject)).toEqual(
      written.map((w) => subjectFor(env.subjectPrefix, 'cart', w.cartId)),
    );
    // Headers travel with each message: its command id, nothing of the move's own.
    const first = await jsm.streams.getMessage(env.stream, { seq: 1 });
    expect(first.header.get('Nats-Msg-Id')).toBe(written[0]!.commandId);
    expect([...first.header.keys()].filter((key) => key.startsWith('Shop-'))).toEqual([]);
    // Each cart's appends carry on from its last sequence, its optimistic concurrency per aggregate.
    const lastOfFirst = written.filter((w) => w.cartId === written[0]!.cartId).at(-1)!.sequence;
    expect((await store.load('cart', written[0]!.cartId)).version).toBe(lastOfFirst);

    // A live read model over two partitions' consumers, from scratch, equals a rebuild.
    const live = `${env.schema}_live`;
    await migrateReadModel(database.db as Kysely<unknown>, live);
    const runners = projectionUnits(() => [cartItemsProjection()], 2).map(
      (projection) =>
        new ProjectionRunner({
          store,
          db: database.db,
          databaseUrl: env.databaseUrl,
          schema: live,
          projection,
        }),
    );
    for (const runner of runners) runner.start();
    await Promise.all(runners.map((runner) => runner.caughtUp(info.state.last_seq)));
    await Promise.all(runners.map((runner) => runner.stop()));
    await rebuildProjections({
      store,
      db: database.db,
      schema: `${env.schema}_rebuilt`,
      projections: [cartItemsProjection()],
      migrations: readModelMigrations,
    });
    const [liveRows, rebuiltRows] = await Promise.all(
      [live, `${env.schema}_rebuilt`].map((schema) => tableChecksums(database.db, schema, ['cart_items'])),
    );
    expect(liveRows).toEqual(rebuiltRows);
    // A row per item ever added (a removed one keeps its row, marked removed).
    expect(liveRows!.cart_items!.rows).toBe(written.filter((w) => w.types[0] === 'ItemAdded').length);
  }, 30_000);

  it('says when the old stream had gaps, so that sequences changed and read models must be rebuilt', async () => {
    const jsm = await nc.jetstreamManager();
    // Only a stream that allowed deletes can have gaps: the event stream never did.
    await jsm.streams.add({ ...firstLayoutDefinition(gapped), deny_delete: false });
    const written = await writeFirstLayout(2, 2, gapped.subjectPrefix);
    await jsm.streams.deleteMessage(gapped.stream, written[1]!.sequence);

    const outcome = await migrateSubjectLayout(nc, gapped);
    expect(outcome.renumbered).toBe(true);
    expect(outcome.steps).toContainEqual(
      expect.stringMatching(/had gaps, so sequences changed: rebuild every read model/),
    );
    const info = await jsm.streams.info(gapped.stream);
    expect([info.state.first_seq, info.state.last_seq, info.state.messages]).toEqual([1, 3, 3]);
  });
});
