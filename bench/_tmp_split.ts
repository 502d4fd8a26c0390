import { Kysely, sql } from 'kysely';
import { eventCatalogue } from '@shop/contracts';
import { createDatabase } from '@shop/db';
import { connectNats, EventStore, decodeCommit } from '@shop/eventstore';
import { readModelProjections } from '@shop/read-models';
import { rebuildProjections } from '@shop/projections';
import { appendHistory } from './event-history';

async function main() {
  const runId = `t${Date.now().toString(36)}`;
  const nc = await connectNats('nats://127.0.0.1:4222', 'tmp');
  const database = createDatabase('postgres://postgres@127.0.0.1:5432/shop', { max: 10 });
  const db = database.db as Kysely<unknown>;
  const store = await EventStore.create(nc, {
    stream: `TMP_${runId}`.toUpperCase(),
    subjectPrefix: `tmp${runId}`,
    catalogue: eventCatalogue,
  });
  await store.ensureStream();
  await appendHistory(store, Math.ceil(Number(process.argv[2] ?? 20000) / 16), 512);
  const time = async (name: string, f: () => Promise<unknown>) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await f();
    const c = process.cpuUsage(c0);
    console.log(
      name,
      'wall',
      ((performance.now() - t0) / 1000).toFixed(2),
      'cpu',
      ((c.user + c.system) / 1e6).toFixed(2),
    );
  };
  const raws: { subject: string; sequence: number; data: Uint8Array }[] = [];
  await time('readRaw', async () => {
    for await (const m of store.readRaw()) raws.push(m);
  });
  await time('decode', async () => {
    for (const m of raws) decodeCommit(eventCatalogue, store.subjectPrefix, m.subject, m.sequence, m.data);
  });
  await time('rebuild', () =>
    rebuildProjections({
      store,
      db,
      schema: `tmp_${runId}`,
      projections: readModelProjections(),
      batchSize: Number(process.env.BS ?? 2000),
    }),
  );
  await (await nc.jetstreamManager()).streams.delete(`TMP_${runId}`.toUpperCase());
  await sql`DROP SCHEMA IF EXISTS ${sql.id(`tmp_${runId}`)} CASCADE`.execute(db);
  await database.close();
  await nc.drain();
}
void main();
