import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, projectorEnv } from '@shop/config';
import { createDatabase } from '@shop/db';
import { createLogger } from '@shop/logging';
import { MetricSample, OpsServer, parsePrometheusText, startOpsServer } from '@shop/metrics';
import { dropSchema, openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { RunningProjector, startProjector } from '../src/projector';

const env = testEnvironment('projcatchup');
let events: TestEventStore;
let projector: RunningProjector | undefined;
let ops: OpsServer | undefined;

beforeAll(async () => {
  events = await openTestEventStore(env);
});
afterAll(async () => {
  await ops?.close();
  await projector?.stop();
  await events?.close();
  await dropSchema(env);
});

/** Registers `count` users and names each: two messages a user. */
async function usersWithNames(count: number): Promise<void> {
  const meta = () => ({
    commandId: randomUUID(),
    correlationId: 'catch-up',
    actor: { kind: 'system' as const, id: null },
  });
  await Promise.all(
    Array.from({ length: count }, async () => {
      const id = randomUUID();
      const { sequence } = await events.store.append(
        'user',
        id,
        [{ type: 'UserRegistered', data: { providerSubject: `dev|${id}`, email: null } }],
        { ...meta(), expectedSequence: 0 },
      );
      await events.store.append('user', id, [{ type: 'DisplayNameSet', data: { displayName: 'Ann' } }], {
        ...meta(),
        expectedSequence: sequence,
      });
    }),
  );
}

async function scrape(): Promise<MetricSample[]> {
  return parsePrometheusText(await (await fetch(`${ops!.url}/metrics`)).text());
}

/** The sum of a metric's samples over the partitions of `projection`, by label. */
function total(
  samples: MetricSample[],
  name: string,
  projection: string,
  labels: Record<string, string> = {},
): number {
  return samples
    .filter(
      (s) =>
        s.name === name &&
        s.labels.projection?.replace(/-p\d+of\d+$/, '') === projection &&
        Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    )
    .reduce((sum, s) => sum + s.value, 0);
}

async function usersCaughtUp(last: number): Promise<MetricSample[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const samples = await scrape();
    const checkpoints = samples.filter(
      (s) => s.name === 'projection_checkpoint' && s.labels.projection?.startsWith('users-'),
    );
    if (checkpoints.length === 2 && checkpoints.every((s) => s.value >= last)) return samples;
    if (Date.now() > deadline) throw new Error(`users did not reach ${last}`);
    await sleep(100);
  }
}

describe('a projector started behind', () => {
  it('catches up through the bulk path, then applies what follows in live batches', async () => {
    await usersWithNames(300);
    const behind = await events.store.lastStreamSequence();
    const config = loadConfig(projectorEnv, {
      ...process.env,
      ...env.env,
      STREAM_PARTITIONS: '2',
      PROJECTOR_BATCH_SIZE: '20',
      PROJECTOR_CATCH_UP_BATCH_SIZE: '100',
    });
    projector = await startProjector(config, createLogger('test', 'silent'));
    ops = await startOpsServer({
      metrics: projector.metrics,
      checks: projector.checks,
      host: '127.0.0.1',
      port: 0,
    });

    const caughtUp = await usersCaughtUp(behind);

    // 600 user messages, half of them each partition's: batches of at most 100 read in bulk.
    expect(total(caughtUp, 'projection_events_applied_total', 'users')).toBe(600);
    expect(total(caughtUp, 'projection_batches_total', 'users', { path: 'catch-up' })).toBeGreaterThanOrEqual(
      6,
    );
    expect(total(caughtUp, 'projection_batches_total', 'users', { path: 'live' })).toBe(0);

    await usersWithNames(3);
    const after = await usersCaughtUp(await events.store.lastStreamSequence());

    expect(total(after, 'projection_events_applied_total', 'users')).toBe(606);
    expect(total(after, 'projection_batches_total', 'users', { path: 'live' })).toBeGreaterThan(0);
    expect(total(after, 'projection_batches_total', 'users', { path: 'catch-up' })).toBe(
      total(caughtUp, 'projection_batches_total', 'users', { path: 'catch-up' }),
    );
    const database = createDatabase(env.databaseUrl, { max: 1 });
    try {
      const { count } = await database.db
        .withSchema(env.schema)
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('display_name', '=', 'Ann')
        .executeTakeFirstOrThrow();
      expect(Number(count)).toBe(303);
    } finally {
      await database.close();
    }
  });
});
