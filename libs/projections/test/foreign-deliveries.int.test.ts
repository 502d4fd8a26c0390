import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely } from 'kysely';
import { DeliverPolicy, NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSubject, partitionOf, RecordedEvent, systemActor } from '@shop/contracts';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { connectNats, foreignDeliveriesDropped } from '@shop/eventstore';
import { migrateReadModel, usersProjection } from '@shop/read-models';
import {
  ForeignPusher,
  openTestEventStore,
  pollUntil,
  PullInboxes,
  testEnvironment,
  TestEventStore,
} from '@shop/testing';
import { consumerNameFor } from '../src/checkpoint-subject';
import { AnyProjection } from '../src/projection';
import { projectionUnits } from '../src/projection-partitions';
import { ProjectionRunner } from '../src/projection-runner';
import { writeUserHistory } from './fixtures';

/**
 * Stored messages pushed onto a projection runner's pull inbox by consumers it did not create
 * (any reader may make one on nats-server 2.9): the runner folds none of them and skips nothing.
 */
const env = testEnvironment('projforeign');
let t: TestEventStore;
let database: DatabaseHandle;
let attacker: NatsConnection;
let foreign: ForeignPusher;
let pulls: PullInboxes;

beforeAll(async () => {
  t = await openTestEventStore(env);
  database = createDatabase(env.databaseUrl, { max: 6 });
  attacker = await connectNats(env.natsUrl, `attacker-${env.id}`);
  foreign = await ForeignPusher.on(attacker, env.stream);
  pulls = PullInboxes.watch(attacker, env.stream);
});
afterAll(async () => {
  pulls?.stop();
  await foreign?.removeAll();
  await attacker?.close();
  await t?.close();
  await database?.close();
});

async function cartNoise(count: number): Promise<void> {
  for (let i = 0; i < count; i++)
    await t.store.append(
      'cart',
      randomUUID(),
      [{ type: 'ItemRemoved', data: { itemId: randomUUID(), reason: 'removed' } }],
      { commandId: randomUUID(), correlationId: randomUUID(), actor: systemActor, expectedSequence: 0 },
    );
}

/** The stream's user commits (of one partition of two, when given), in order. */
async function userCommits(end: number, partition?: number): Promise<number[]> {
  const sequences: number[] = [];
  for await (const raw of t.store.readRaw(1, end)) {
    const { aggregate, id } = parseSubject(env.subjectPrefix, raw.subject);
    if (aggregate === 'user' && (partition === undefined || partitionOf(id, 2) === partition))
      sequences.push(raw.sequence);
  }
  return sequences;
}

interface Logged {
  level: 'info' | 'warn' | 'error';
  msg: string;
}

/** A projection unit whose every applied event is recorded, its runner and what it logged. */
function recordedRunner(unit: AnyProjection, schema: string) {
  const applied: RecordedEvent[] = [];
  const logged: Logged[] = [];
  const projection: AnyProjection = {
    ...unit,
    apply: async (db, events, mode) => {
      await unit.apply(db, events, mode);
      applied.push(...events);
    },
  };
  const runner = new ProjectionRunner({
    store: t.store,
    db: database.db,
    databaseUrl: env.databaseUrl,
    schema,
    projection,
    batchSize: 10,
    // Every message through the runner's consumer, none through a catch-up read.
    catchUpBatchSize: 0,
    logger: {
      info: (_, msg) => logged.push({ level: 'info', msg }),
      warn: (_, msg) => logged.push({ level: 'warn', msg }),
      error: (_, msg) => logged.push({ level: 'error', msg }),
    },
  });
  return { runner, applied, logged };
}

describe('a projection runner given a flood of foreign messages on its pull inbox', () => {
  it('folds exactly the commits its own consumer delivers, each once, and reaches the end', async () => {
    // One schema each: a whole projection's checkpoint row and a partition's do not share one.
    const schemas = [`${env.schema}_whole`, `${env.schema}_part`];
    for (const schema of schemas) await migrateReadModel(database.db as Kysely<unknown>, schema);
    await writeUserHistory(t.store, 12, 1);
    await cartNoise(6);
    const [partition0] = projectionUnits(() => [usersProjection], 2);
    const runs = [recordedRunner(usersProjection, schemas[0]!), recordedRunner(partition0!, schemas[1]!)];
    for (const { runner } of runs) runner.start();
    const start = await t.store.lastStreamSequence();
    await Promise.all(runs.map(({ runner }) => runner.caughtUp(start)));
    const droppedBefore = foreignDeliveriesDropped().get('projection') ?? 0;

    // Onto each runner's pull inbox: every stored message from the start, three times over, and
    // each subject's last once more, then all that is stored while it runs.
    for (const { runner } of runs) {
      const inbox = await pulls.of(consumerNameFor(t.store, runner.name));
      for (let i = 0; i < 3; i++) await foreign.pushOnto(inbox);
      await foreign.pushOnto(inbox, {
        deliver_policy: DeliverPolicy.LastPerSubject,
        filter_subject: `${env.subjectPrefix}.>`,
      });
    }
    await writeUserHistory(t.store, 12, 2);
    await cartNoise(6);
    const end = await t.store.lastStreamSequence();
    // Waited for so that a runner taken off its course fails on what it applied, below.
    await Promise.race([Promise.all(runs.map(({ runner }) => runner.caughtUp(end))), sleep(20_000)]);
    // Every foreign message sent has reached the runners (and been dropped there).
    await foreign.allDeliveredThrough(end).catch(() => undefined);
    const dropped = () => (foreignDeliveriesDropped().get('projection') ?? 0) - droppedBefore;
    await pollUntil(
      () => foreign.totals(),
      (sent) => dropped() >= sent.delivered,
      'the flood dropped',
      3000,
    ).catch(() => undefined);
    for (const { runner } of runs) await runner.stop();

    const [whole, partitioned] = runs;
    expect(whole!.applied.map((e) => e.sequence)).toEqual(await userCommits(end));
    expect(partitioned!.applied.map((e) => e.sequence)).toEqual(await userCommits(end, 0));
    // Dropped, every one of them, and none acknowledged.
    const sent = await foreign.totals();
    expect(sent.delivered).toBeGreaterThan(4 * end);
    expect(dropped()).toBe(sent.delivered);
    expect(sent.acknowledged).toBe(0);
    for (const { runner, logged } of runs) {
      expect(runner.checkpoint).toBe(end);
      // No reset, no error: the runner never saw the flood. A line (one per 10 s) says what it dropped.
      const said = logged.filter((l) => l.level !== 'info');
      expect(said.length).toBeGreaterThanOrEqual(1);
      expect(said.length).toBeLessThanOrEqual(2);
      for (const line of said)
        expect(line).toEqual({
          level: 'warn',
          msg: "dropped messages pushed onto this process's inbox by a consumer it did not create",
        });
    }
  }, 60_000);
});
