import { Kysely, sql } from 'kysely';
import { eventCatalogue } from '@shop/contracts';
import { createDatabase } from '@shop/db';
import { connectNats, EventStore } from '@shop/eventstore';
import { readModelProjections } from '@shop/read-models';
import { measureRebuild } from './rebuild-bench';

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
  const c0 = process.cpuUsage();
  const r = await measureRebuild({
    store,
    db,
    schema: `tmp_${runId}`,
    projections: readModelProjections(),
    minEvents: Number(process.argv[2] ?? 20000),
    runId,
    log: (l) => console.error(l),
  });
  const c1 = process.cpuUsage(c0);
  console.log(JSON.stringify(r), 'benchCpuS', (c1.user + c1.system) / 1e6);
  await (await nc.jetstreamManager()).streams.delete(`TMP_${runId}`.toUpperCase());
  for (const s of ['', '_copy'])
    await sql`DROP SCHEMA IF EXISTS ${sql.id(`tmp_${runId}${s}`)} CASCADE`.execute(db);
  await database.close();
  await nc.drain();
}
void main();
