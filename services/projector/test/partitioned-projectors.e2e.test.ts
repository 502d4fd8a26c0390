import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemActor } from '@shop/contracts';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { compareTables, projectionUnits, rebuildProjections } from '@shop/projections';
import { migrateReadModel, readModelMigrations, readModelProjections } from '@shop/read-models';
import {
  dropSchema,
  openTestEventStore,
  ServiceProcess,
  startServiceProcess,
  testEnvironment,
  TestEventStore,
} from '@shop/testing';

const env = testEnvironment('partproj');
const partitions = 4;
const users = 20;
const units = projectionUnits(() => readModelProjections(), partitions).map((u) => u.name);
let t: TestEventStore;
let database: DatabaseHandle;
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  t = await openTestEventStore(env);
  database = createDatabase(env.databaseUrl, { max: 6 });
});
afterAll(async () => {
  await Promise.all(processes.map((p) => p.kill()));
  await t?.close();
  await database?.close();
  await dropSchema(env);
  await sql`DROP SCHEMA IF EXISTS ${sql.id(`${env.schema}_rebuilt`)} CASCADE`
    .execute(database.db)
    .catch(() => undefined);
});

/** The units a projector process says it holds, from its latest claims log line. */
function heldBy(process: ServiceProcess): string[] {
  const lines = process
    .output()
    .split('\n')
    .filter((line) => line.includes('"held"'));
  const last = lines.at(-1);
  return last ? (JSON.parse(last) as { held: string[] }).held : [];
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(100);
  }
}

/**
 * Records what the projector writes, for what a re-apply would leave behind: every write of a
 * cart item row with the version (the sequence of its last event) it wrote, and every move of a
 * checkpoint row. Rolled back with a killed batch, so only committed applies are recorded.
 */
async function auditWrites(schema: string): Promise<void> {
  await sql
    .raw(
      `CREATE TABLE ${schema}.item_writes (id bigserial PRIMARY KEY, item_id uuid NOT NULL, version bigint NOT NULL);
       CREATE FUNCTION ${schema}.record_item_write() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN INSERT INTO ${schema}.item_writes (item_id, version) VALUES (NEW.item_id, NEW.version); RETURN NEW; END $$;
       CREATE TRIGGER item_writes AFTER INSERT OR UPDATE ON ${schema}.cart_items
         FOR EACH ROW EXECUTE FUNCTION ${schema}.record_item_write();
       CREATE TABLE ${schema}.checkpoint_moves (id bigserial PRIMARY KEY, projection text NOT NULL, from_position bigint NOT NULL, to_position bigint NOT NULL);
       CREATE FUNCTION ${schema}.record_checkpoint_move() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN INSERT INTO ${schema}.checkpoint_moves (projection, from_position, to_position)
               VALUES (NEW.projection, OLD.position, NEW.position); RETURN NEW; END $$;
       CREATE TRIGGER checkpoint_moves AFTER UPDATE ON ${schema}.projection_checkpoints
         FOR EACH ROW EXECUTE FUNCTION ${schema}.record_checkpoint_move();`,
    )
    .execute(database.db);
}

/** Users adding and removing cart items, a commit at a time, until `stop` says so. */
async function cartLoad(users: number, stop: () => boolean): Promise<number> {
  const meta = () => ({ commandId: randomUUID(), correlationId: 'partitioned-load', actor: systemActor });
  let commits = 0;
  await Promise.all(
    Array.from({ length: users }, async (_, u) => {
      const userId = randomUUID();
      const itemId = randomUUID();
      let version = 0;
      for (let round = 0; !stop(); round++) {
        const event =
          round % 2 === 0
            ? {
                type: 'ItemAdded' as const,
                data: {
                  itemId,
                  productId: `p-${u}`,
                  productName: `product ${u}`,
                  price: 100 + round,
                  image: '',
                  size: 'M',
                  color: 'blue',
                  productUrl: '',
                  retailer: 'test',
                },
              }
            : { type: 'ItemRemoved' as const, data: { itemId, reason: 'removed' as const } };
        version = (await t.store.append('cart', userId, [event], { ...meta(), expectedSequence: version }))
          .sequence;
        commits++;
        // A steady load, not a flood: the machine is shared, and the point is a kill mid-stream.
        await sleep(20);
      }
    }),
  );
  return commits;
}

describe('partitioned projectors', () => {
  it('spreads 4 partitions over two processes; one killed under load, the other takes its units over, nothing applied twice, live == rebuild', async () => {
    const schema = env.schema;
    await migrateReadModel(database.db as Kysely<unknown>, schema);
    await auditWrites(schema);
    const serviceEnv = {
      ...env.env,
      STREAM_PARTITIONS: String(partitions),
      PROJECTOR_BATCH_SIZE: '100',
      LOG_LEVEL: 'info',
    };
    const a = startServiceProcess('services/projector/src/main.ts', serviceEnv);
    processes.push(a);
    await a.waitForOutput(/projector started/, 60_000);
    expect(heldBy(a)).toHaveLength(units.length);
    const b = startServiceProcess('services/projector/src/main.ts', serviceEnv);
    processes.push(b);
    await b.waitForOutput(/projector started/, 60_000);

    let stopped = false;
    let atKill: number | undefined;
    const load = cartLoad(users, () => stopped);
    try {
      const share = Math.ceil(units.length / 2);
      await until(
        () => heldBy(a).length <= share && heldBy(b).length >= units.length - share,
        'the units spread over both processes',
      );
      expect([...heldBy(a), ...heldBy(b)].sort()).toEqual([...units].sort());
      await sleep(1500);
      atKill = await t.store.lastStreamSequence();
      await a.kill();
      await until(() => heldBy(b).length === units.length, 'B holding every unit', 30_000);
      await sleep(1000);
    } finally {
      stopped = true;
    }
    expect(await load).toBeGreaterThan(100);

    const last = await t.store.lastStreamSequence();
    // Commits kept coming after the kill: the units taken over applied them.
    expect(last).toBeGreaterThan(atKill!);
    const checkpoints = async () =>
      database.db
        .withSchema(schema)
        .selectFrom('projection_checkpoints')
        .select(['projection', 'position'])
        .execute();
    await until(
      async () => (await checkpoints()).every((row) => Number(row.position) === last),
      'every checkpoint at the stream end',
      120_000,
    );
    await b.stop();
    expect((await checkpoints()).map((row) => row.projection).sort()).toEqual([...units].sort());

    // Nothing applied twice: no item row written twice at one version, no checkpoint moved but forward from where it was.
    const { rows: doubled } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM (SELECT 1 FROM ${sql.table(`${schema}.item_writes`)}
      GROUP BY item_id, version HAVING count(*) > 1) d`.execute(database.db);
    expect(doubled[0]!.n).toBe(0);
    const { rows: moves } = await sql<{ projection: string; from_position: string; to_position: string }>`
      SELECT projection, from_position, to_position FROM ${sql.table(`${schema}.checkpoint_moves`)} ORDER BY id`.execute(
      database.db,
    );
    const reached = new Map<string, number>();
    for (const move of moves) {
      expect(Number(move.from_position)).toBe(reached.get(move.projection) ?? 0);
      expect(Number(move.to_position)).toBeGreaterThan(Number(move.from_position));
      reached.set(move.projection, Number(move.to_position));
    }
    expect(new Set(reached.values())).toEqual(new Set([last]));

    const rebuilt = `${schema}_rebuilt`;
    const unitProjections = projectionUnits(() => readModelProjections(), partitions);
    await rebuildProjections({
      store: t.store,
      db: database.db,
      schema: rebuilt,
      projections: unitProjections,
      migrations: readModelMigrations,
      untilSequence: last,
    });
    const rebuiltCheckpoints = await database.db
      .withSchema(rebuilt)
      .selectFrom('projection_checkpoints')
      .select(['projection', 'position'])
      .execute();
    expect(rebuiltCheckpoints.map((row) => [row.projection, Number(row.position)]).sort()).toEqual(
      units.map((unit) => [unit, last]).sort(),
    );
    const tables = await compareTables(database.db, schema, rebuilt, [
      ...new Set(unitProjections.flatMap((p) => p.tables)),
    ]);
    expect(tables.filter((table) => !table.equal)).toEqual([]);
    expect(tables.find((table) => table.table === 'cart_items')!.live.rows).toBe(users);
  }, 240_000);
});
