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

/** One row per event in a table of its own, written with one statement per batch. */
function countingProjection(table: string): ReadModelProjection {
  return {
    name: table,
    aggregates: ['user'],
    tables: [],
    async apply(db, events) {
      if (events.length === 0) return;
      await sql`INSERT INTO ${sql.table(`${env.schema}.${table}`)} (sequence) SELECT unnest(${events.map((e) => e.sequence)}::bigint[])`.execute(
        db,
      );
    },
  };
}

const item = (sequence: number) => ({
  sequence,
  subject: `test.user.${randomUUID()}`,
  events: [{ sequence, type: 'UserRegistered' } as unknown as RecordedEvent],
});

describe('BatchApplier', () => {
  it('applies a batch in the projection statements plus two round trips: BEGIN with the checkpoint move, and COMMIT', async () => {
    const table = `applied_${randomUUID().slice(0, 8)}`;
    await sql`CREATE TABLE ${sql.table(`${env.schema}.${table}`)} (sequence bigint PRIMARY KEY)`.execute(
      database.db,
    );
    const applier = new BatchApplier(database.db, env.schema, countingProjection(table), 3);
    const start = await applier.checkpoint();

    queries = 0;
    const outcome = await applier.apply([item(start + 1), item(start + 2)], start);
    expect(queries).toBe(3);
    expect(outcome.checkpoint).toBe(start + 2);

    const rows = await sql<{
      sequence: number;
    }>`SELECT sequence FROM ${sql.table(`${env.schema}.${table}`)} ORDER BY sequence`.execute(database.db);
    expect(rows.rows.map((r) => Number(r.sequence))).toEqual([start + 1, start + 2]);
    expect(await applier.checkpoint()).toBe(start + 2);
  });

  it('commits nothing when the checkpoint is not where the runner left it', async () => {
    const table = `moved_${randomUUID().slice(0, 8)}`;
    await sql`CREATE TABLE ${sql.table(`${env.schema}.${table}`)} (sequence bigint PRIMARY KEY)`.execute(
      database.db,
    );
    const applier = new BatchApplier(database.db, env.schema, countingProjection(table), 3);
    const start = await applier.checkpoint();

    await expect(applier.apply([item(start + 6)], start + 5)).rejects.toBeInstanceOf(CheckpointMovedError);
    const rows = await sql`SELECT sequence FROM ${sql.table(`${env.schema}.${table}`)}`.execute(database.db);
    expect(rows.rows).toEqual([]);
    expect(await applier.checkpoint()).toBe(start);
    // Rolled back, not left open: the next batch from the row's position goes through.
    await applier.apply([item(start + 1)], start);
    expect(await applier.checkpoint()).toBe(start + 1);
  });
});
