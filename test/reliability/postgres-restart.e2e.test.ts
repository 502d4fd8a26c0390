import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, DatabaseHandle } from '@shop/db';
import { ProjectionRunner } from '@shop/projections';
import { PrivatePostgres, startPrivatePostgres } from '@shop/testing';
import { countingProjection } from '../../libs/projections/test/live-read-model';
import { CommandLoad, missingAcknowledged } from './command-load';
import { compareWithRebuild, figures, Stack, waitForProjections, writeFigures } from './harness';

/**
 * PostgreSQL restarted (cleanly, then crashed) on a private cluster while commands flow: the
 * projector resumes from its checkpoint and applies nothing twice (a deliberately
 * non-idempotent counting projection runs beside the real ones), the read model equals a
 * rebuild, and the gateway answers 503 in the envelope while the database is away.
 */
let pg: PrivatePostgres;
let stack: Stack;
let counterDb: DatabaseHandle;
let counter: ProjectionRunner;

beforeAll(async () => {
  pg = await startPrivatePostgres();
  // Reads wait for their consistency token at most briefly here, so that while Postgres is down
  // they reach it and show the 503 under test instead of waiting out the outage.
  stack = await Stack.start('pgrestart', {
    vars: { DATABASE_URL: pg.url, CONSISTENT_READ_TIMEOUT_MS: '100' },
  });
  counterDb = createDatabase(pg.url, { max: 2, applicationName: 'counter' });
  await sql
    .raw(`CREATE TABLE ${stack.env.schema}.event_counts (subject text PRIMARY KEY, n integer NOT NULL)`)
    .execute(counterDb.db);
  counter = new ProjectionRunner({
    store: await stack.store(),
    db: counterDb.db,
    databaseUrl: pg.url,
    schema: stack.env.schema,
    projection: countingProjection,
    batchSize: 50,
  });
  counter.start();
}, 90_000);
afterAll(async () => {
  writeFigures('postgres-restart');
  await counter?.stop();
  await counterDb?.close();
  await stack?.stop();
  await pg?.close();
});

describe('PostgreSQL restart under load', () => {
  it('resumes every projection from its checkpoint and applies nothing twice', async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => stack.shopper({ wallet: false })));
    const load = new CommandLoad(users, {
      allowedCommandStatuses: [503],
      allowedReadStatuses: [503],
    });
    load.start();
    const outages: { down: number; up: number }[] = [];
    const probes: { status: number; code?: unknown }[] = [];
    for (const mode of ['fast', 'immediate'] as const) {
      await sleep(1500);
      const down = Date.now();
      await pg.stop(mode);
      // The load's reads may be served by the cart cache while the database is away; the chat
      // session list has no cache, so this read must reach Postgres and find it gone.
      const probe = await users[0]!.client.request('GET', '/api/sessions');
      probes.push({ status: probe.status, code: probe.json?.code });
      await sleep(Math.max(0, down + 2000 - Date.now()));
      const up = Date.now();
      await pg.start();
      outages.push({ down, up });
      const deadline = Date.now() + 30_000;
      while (load.acknowledgedSince(up) < 5 && Date.now() < deadline) await sleep(100);
      expect(load.acknowledgedSince(up), `recovered after a ${mode} stop`).toBeGreaterThanOrEqual(5);
      figures.faultsSurvived++;
    }
    await sleep(1000);
    await load.stop();

    expect(load.unexpected).toEqual([]);
    figures.invariantsBroken += load.unexpected.length;
    expect(probes).toEqual([
      { status: 503, code: 'SERVICE_UNAVAILABLE' },
      { status: 503, code: 'SERVICE_UNAVAILABLE' },
    ]);
    const during = load.answers.filter((a) => outages.some((o) => a.at > o.down && a.at < o.up));
    expect(during.filter((a) => a.status >= 500).every((a) => a.code === 'SERVICE_UNAVAILABLE')).toBe(true);

    // The reactions came back too: a new user's wallet is provisioned (NATS consumer, provider, Postgres).
    const after = await stack.shopper({ wallet: true, funds: '0' });
    expect(after.evm).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const store = await stack.store();
    const last = await stack.quietSequence();
    await waitForProjections(stack.database, stack.env.schema, last, 60_000);
    await counter.caughtUp(last);

    // Exactly once: the non-idempotent counter holds the stream's event count, no more, no less.
    let streamEvents = 0;
    for await (const commit of store.read(1, last)) streamEvents += commit.length;
    const { rows } = await sql<{ total: number }>`
      SELECT coalesce(sum(n), 0)::int AS total FROM ${sql.table(`${stack.env.schema}.event_counts`)}`.execute(
      counterDb.db,
    );
    figures.invariantsBroken += Math.abs(rows[0]!.total - streamEvents);
    expect(rows[0]!.total).toBe(streamEvents);

    const { missingInStream, missingInReadModel } = await missingAcknowledged(
      load.acknowledged,
      store,
      stack.database,
      stack.env.schema,
    );
    expect(missingInStream).toEqual([]);
    expect(missingInReadModel).toEqual([]);
    const { differing } = await compareWithRebuild(store, stack.database, stack.env.schema);
    figures.invariantsBroken += differing.length;
    expect(differing).toEqual([]);
  }, 150_000);
});
