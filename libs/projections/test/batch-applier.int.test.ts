import { randomUUID } from 'node:crypto';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordedEvent } from '@shop/contracts';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { migrateReadModel, ReadModelProjection } from '@shop/read-models';
import { testEnvironment } from '@shop/testing';
import { BatchApplier, CheckpointMovedError } from '../src/batch-applier';

const env = testEnvironment('batch-applier');
let database: DatabaseHandle;
/** Queries sent to Postgres: each is one round trip. */
let queries = 0;

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 2 });
  database.pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      queries++;
      return query(...args);
    };
  });
  await migrateReadModel(database.db as Kysely<unknown>, env.schema);
});
afterAll(() => database.close());

/**
 * An applier of a projection that keeps one row per event in a fresh table of its own, written
 * with one statement per batch; with the table's rows, in stream order.
 */
async function freshApplier(name: string) {
  const table = sql.table(`${env.schema}.${name}_${randomUUID().slice(0, 8)}`);
  await sql`CREATE TABLE ${table} (sequence bigint PRIMARY KEY)`.execute(database.db);
  const projection: ReadModelProjection = {
    name,
    aggregates: ['user'],
    tables: [],
    async apply(db, events) {
      if (events.length === 0) return;
      await sql`INSERT INTO ${table} (sequence) SELECT unnest(${events.map((e) => e.sequence)}::bigint[])`.execute(
        db,
      );
    },
  };
  const applier = new BatchApplier(database.db, env.schema, projection, 3);
  const rows = async () =>
    (
      await sql<{ sequence: number }>`SELECT sequence FROM ${table} ORDER BY sequence`.execute(database.db)
    ).rows.map((r) => Number(r.sequence));
  return { applier, rows, start: await applier.checkpoint() };
}

const item = (sequence: number) => ({
  sequence,
  subject: `test.user.${randomUUID()}`,
  events: [{ sequence, type: 'UserRegistered' } as unknown as RecordedEvent],
});

describe('BatchApplier', () => {
  it('applies a batch in the projection statements plus two round trips: BEGIN with the checkpoint move, and COMMIT', async () => {
    const { applier, rows, start } = await freshApplier('applied');

    queries = 0;
    const outcome = await applier.apply([item(start + 1), item(start + 2)], start);
    expect(queries).toBe(3);
    expect(outcome.checkpoint).toBe(start + 2);

    expect(await rows()).toEqual([start + 1, start + 2]);
    expect(await applier.checkpoint()).toBe(start + 2);
  });

  it("commits a batch without waiting for the WAL flush unless asked to, and leaves the connection's setting as it was", async () => {
    const seen: string[] = [];
    const projection: ReadModelProjection = {
      name: 'durability',
      aggregates: ['user'],
      tables: [],
      async apply(db) {
        const { rows } = await sql<{
          setting: string;
        }>`SELECT current_setting('synchronous_commit') AS setting`.execute(db);
        seen.push(rows[0]!.setting);
      },
    };
    const rebuildable = new BatchApplier(database.db, env.schema, projection, 3);
    const durable = new BatchApplier(database.db, env.schema, projection, 3, true);
    const start = await rebuildable.checkpoint();

    await rebuildable.apply([item(start + 1)], start);
    await durable.apply([item(start + 2)], start + 1);

    expect(seen).toEqual(['off', 'on']);
    const { rows } = await sql<{
      setting: string;
    }>`SELECT current_setting('synchronous_commit') AS setting`.execute(database.db);
    expect(rows[0]!.setting).toBe('on');
  });

  it('commits nothing when the checkpoint is not where the runner left it', async () => {
    const { applier, rows, start } = await freshApplier('moved');

    await expect(applier.apply([item(start + 6)], start + 5)).rejects.toBeInstanceOf(CheckpointMovedError);
    expect(await rows()).toEqual([]);
    expect(await applier.checkpoint()).toBe(start);
    // Rolled back, not left open: the next batch from the row's position goes through.
    await applier.apply([item(start + 1)], start);
    expect(await applier.checkpoint()).toBe(start + 1);
  });
});
