import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordedEvent, systemActor } from '@shop/contracts';
import {
  createDatabase,
  DatabaseHandle,
  migrateSchema,
  ReactionsDatabase,
  reactionsMigrations,
} from '@shop/db';
import {
  openTestEventStore,
  PrivatePostgres,
  startPrivatePostgres,
  testEnvironment,
  TestEventStore,
  WatchedParking,
} from '@shop/testing';
import { Reaction } from '../src/reaction';
import { ReactionRunner } from '../src/reaction-runner';

/**
 * Postgres (parking, the reaction's own writes, the runner's lock) is down for longer than every
 * retry back-off of the messages in hand. Once it is back, every event's work is done exactly
 * once, in each subject's order: nothing was terminated without its outcome or its parking.
 */

const env = testEnvironment('reactoutage');
let t: TestEventStore;
let postgres: PrivatePostgres;
let database: DatabaseHandle;

beforeAll(async () => {
  t = await openTestEventStore(env);
  postgres = await startPrivatePostgres();
  database = createDatabase(postgres.url, { max: 4 });
  await migrateSchema(database.db as Kysely<unknown>, 'reactions', reactionsMigrations);
  await sql`CREATE TABLE effects (
    reaction text NOT NULL, sequence bigint NOT NULL, subject text NOT NULL,
    times integer NOT NULL, done bigserial, PRIMARY KEY (reaction, sequence))`.execute(database.db);
}, 120_000);
afterAll(async () => {
  await database?.close();
  await postgres?.close();
  await t?.close();
});

const silent = { warn() {}, error() {} };

/**
 * What the runner logged it did with a message it stopped trying: gave up on it (an error), or
 * left it to whoever holds the lock next.
 */
class DecisionLog {
  readonly decided = new Set<number>();
  warn(obj: { sequence?: number }, msg: string): void {
    if (obj.sequence !== undefined && /lock/.test(msg)) this.decided.add(obj.sequence);
  }
  error(obj: { sequence?: number }): void {
    if (obj.sequence !== undefined) this.decided.add(obj.sequence);
  }
}

const newParking = () =>
  new WatchedParking(database.db.withSchema('reactions') as unknown as Kysely<ReactionsDatabase>);

/**
 * A reaction whose work, for events of `carts`, is a row in Postgres, counting how often each
 * event's work was done.
 */
function writingReaction(
  name: string,
  carts: string[],
  before: (event: RecordedEvent) => Promise<void>,
): Reaction {
  return {
    name,
    aggregate: 'cart',
    eventTypes: ['ItemAdded'],
    handle: async (event) => {
      if (!carts.includes(event.aggregateId)) return;
      await before(event);
      await sql`INSERT INTO effects (reaction, sequence, subject, times)
        VALUES (${name}, ${event.sequence}, ${event.aggregateId}, 1)
        ON CONFLICT (reaction, sequence) DO UPDATE SET times = effects.times + 1`.execute(database.db);
    },
  };
}

/** Appends `count` ItemAdded commits on each of `carts`, interleaved; their sequences. */
async function appendItems(carts: string[], count: number): Promise<Map<string, number[]>> {
  const sequences = new Map<string, number[]>(carts.map((c) => [c, []]));
  for (let i = 0; i < count; i++) {
    for (const cartId of carts) {
      const own = sequences.get(cartId)!;
      const { sequence } = await t.store.append(
        'cart',
        cartId,
        [
          {
            type: 'ItemAdded',
            data: {
              itemId: randomUUID(),
              productId: `P${i}`,
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
        {
          expectedSequence: own.at(-1) ?? 0,
          commandId: randomUUID(),
          correlationId: randomUUID(),
          causationId: null,
          actor: systemActor,
        },
      );
      own.push(sequence);
    }
  }
  return sequences;
}

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await sleep(100);
  }
}

async function effects(name: string): Promise<{ sequence: number; subject: string; times: number }[]> {
  const { rows } = await sql<{ sequence: string; subject: string; times: number }>`
    SELECT sequence, subject, times FROM effects WHERE reaction = ${name} ORDER BY done`.execute(database.db);
  return rows.map((r) => ({ ...r, sequence: Number(r.sequence) }));
}

/** Every event's work done once, each subject's in stream order. */
async function expectDoneOnceInOrder(name: string, sequences: Map<string, number[]>): Promise<void> {
  const done = await effects(name);
  expect(done.every((e) => e.times === 1)).toBe(true);
  for (const [cartId, own] of sequences) {
    expect(done.filter((e) => e.subject === cartId).map((e) => e.sequence)).toEqual(own);
  }
}

describe('a reaction while Postgres is down for longer than its retries', () => {
  it('parks what ran out of attempts once Postgres is back, and never terminates it unparked', async () => {
    const name = `parkoutage_${randomUUID().slice(0, 8)}`;
    const carts = [randomUUID(), randomUUID(), randomUUID()];
    const parking = newParking();
    const runner = new ReactionRunner({
      store: t.store,
      logger: silent,
      parking,
      maxDeliveries: 3,
      retryParkedEveryMs: 200,
      reaction: writingReaction(name, carts, async () => undefined),
    });
    await runner.start();
    try {
      await postgres.stop('fast');
      const sequences = await appendItems(carts, 2);
      const all = [...sequences.values()].flat();
      // The first message of each subject used up its attempts and could not be parked.
      const first = carts.map((c) => sequences.get(c)![0]!);
      await until(() => first.every((s) => parking.failed.has(s)), 'a park failed during the outage');
      await postgres.start();
      await until(async () => (await effects(name)).length === all.length, "every event's work done");
      await until(async () => (await parking.parked(name)).length === 0, 'nothing left parked');
      await expectDoneOnceInOrder(name, sequences);
    } finally {
      await postgres.start();
      await runner.stop();
    }
  }, 120_000);

  it('leaves the messages in hand for redelivery when the outage also takes its lock', async () => {
    const name = `lockoutage_${randomUUID().slice(0, 8)}`;
    const carts = [randomUUID(), randomUUID()];
    const parking = newParking();
    const logger = new DecisionLog();
    const entered = new Set<string>();
    let releaseFirst: () => void = () => undefined;
    const firstGate = new Promise<void>((resolve) => (releaseFirst = resolve));
    const runner = new ReactionRunner({
      store: t.store,
      logger,
      parking,
      maxDeliveries: 3,
      retryParkedEveryMs: 200,
      databaseUrl: postgres.url,
      reaction: writingReaction(name, carts, async (event) => {
        if (entered.has(event.aggregateId)) return;
        entered.add(event.aggregateId);
        // The first event of each subject is in hand when Postgres goes down.
        await firstGate;
      }),
    });
    const sequences = await appendItems(carts, 3);
    await runner.start();
    try {
      await until(() => entered.size === carts.length, 'each subject has a message in hand');
      await postgres.stop('fast');
      releaseFirst();
      const first = carts.map((c) => sequences.get(c)![0]!);
      await until(
        () => first.every((s) => logger.decided.has(s)),
        'the runner let go of the messages in hand',
      );
      // Down for longer than the back-offs of all three attempts (0.5 s, then 1 s).
      await sleep(3000);
      await postgres.start();
      const count = [...sequences.values()].flat().length;
      await until(async () => (await effects(name)).length === count, "every event's work done");
      await until(async () => (await parking.parked(name)).length === 0, 'nothing left parked');
      await expectDoneOnceInOrder(name, sequences);
    } finally {
      releaseFirst();
      await postgres.start();
      await runner.stop();
    }
  }, 120_000);
});
