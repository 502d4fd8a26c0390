import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDatabase,
  DatabaseHandle,
  migrateSchema,
  reactionsMigrations,
  ReactionsDatabase,
} from '@shop/db';
import { testEnvironment } from '@shop/testing';
import { PostgresReactionPositions } from '../src/reaction-positions';

const env = testEnvironment('reactpos');
const schema = `${env.schema}_reactions`;
let database: DatabaseHandle;
let positions: PostgresReactionPositions;

beforeAll(async () => {
  database = createDatabase(env.databaseUrl, { max: 2 });
  await migrateSchema(database.db as Kysely<unknown>, schema, reactionsMigrations);
  positions = new PostgresReactionPositions(
    database.db.withSchema(schema) as unknown as Kysely<ReactionsDatabase>,
  );
});
afterAll(async () => {
  await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(database.db);
  await database.close();
});

describe("a reaction partition's record of how far it got", () => {
  it('is null before the first record, and never moves back (an old holder writing late)', async () => {
    const partition = { index: 0, count: 1 };
    expect(await positions.read('wallet-provisioning', partition)).toBeNull();
    await positions.record('wallet-provisioning', partition, 120);
    await positions.record('wallet-provisioning', partition, 80);
    expect(await positions.read('wallet-provisioning', partition)).toBe(120);
    await positions.record('wallet-provisioning', partition, 130);
    expect(await positions.read('wallet-provisioning', partition)).toBe(130);
    expect(await positions.read('wallet-provisioning', { index: 0, count: 2 })).toBeNull();
  });

  it('gives a new split the lowest record of each other count whose every partition has one', async () => {
    await positions.record('order-cart', { index: 0, count: 1 }, 500);
    await positions.record('order-cart', { index: 0, count: 2 }, 700);
    await positions.record('order-cart', { index: 1, count: 2 }, 650);
    // Three of four partitions recorded: this count says nothing about the fourth's events.
    for (const index of [0, 1, 2]) await positions.record('order-cart', { index, count: 4 }, 900);
    expect(await positions.byCount('order-cart')).toEqual(
      new Map([
        [1, 500],
        [2, 650],
      ]),
    );
  });
});
