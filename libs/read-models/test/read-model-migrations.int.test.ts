import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnvironment } from '@shop/testing';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { migrateReadModel } from '../src/read-model-migrations';

const env = testEnvironment('migrations');
let handles: DatabaseHandle[];

beforeAll(() => {
  handles = Array.from({ length: 6 }, () => createDatabase(env.databaseUrl, { max: 2 }));
});
afterAll(async () => {
  await sql`DROP SCHEMA IF EXISTS ${sql.id(env.schema)} CASCADE`.execute(handles[0]!.db);
  await Promise.all(handles.map((h) => h.close()));
});

describe('migrateReadModel', () => {
  it('lets several processes create and migrate the same new schema at once', async () => {
    const applied = await Promise.all(
      handles.map((h) => migrateReadModel(h.db as Kysely<unknown>, env.schema)),
    );

    const tables = await sql<{ name: string }>`
      SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ${env.schema}`.execute(
      handles[0]!.db,
    );
    expect(tables.rows.map((r) => r.name)).toEqual(
      expect.arrayContaining(['users', 'projection_checkpoints']),
    );
    // Kysely's migration lock lets exactly one of them apply each migration.
    expect(applied.flat().sort()).toEqual(
      applied
        .find((names) => names.length > 0)!
        .slice()
        .sort(),
    );
  });
});
