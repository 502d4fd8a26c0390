import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely } from 'kysely';
import pg from 'pg';
import { dataEncryptionKey, loadConfigOrExit, sharedEnv } from '@shop/config';
import { eventCatalogue } from '@shop/contracts';
import { createDatabase } from '@shop/db';
import { connectNats, EventStore } from '@shop/eventstore';
import { runService } from '@shop/run-service';
import { openDataKeyVault } from '@shop/wallets';
import { partitionedRunners } from '../src/partitioned-runners';

/**
 * A process hosting a reaction the way a gateway hosts its own: a runner per partition of
 * STREAM_PARTITIONS, each on its lock, taking its share of the partitions. The reaction records every ItemRemoved in
 * <READ_MODEL_SCHEMA>.reaction_outcomes, one row per event (a repeat only counts itself in
 * `handlings`), with the process that first handled it and the order it was first handled in.
 * reaction-partition-failover.int.test.ts starts two and kills one. On SIGUSR2 the process holds
 * the next message it records, unacknowledged, for good (printing `holding <event id>`): the kill
 * then certainly finds an outcome recorded and never acknowledged.
 */
runService('outcome-recording', async () => {
  const config = loadConfigOrExit(sharedEnv, 'outcome-recording');
  const nc = await connectNats(config, `outcomes-${process.pid}`);
  const database = createDatabase(config.DATABASE_URL, {
    max: 1,
    applicationName: `outcomes-${process.pid}`,
  });
  const dataKeys = await openDataKeyVault(
    database.db as Kysely<unknown>,
    config.SECRETS_SCHEMA,
    dataEncryptionKey(config),
  );
  const store = await EventStore.create(nc, {
    stream: config.EVENT_STREAM,
    subjectPrefix: config.EVENT_SUBJECT_PREFIX,
    catalogue: eventCatalogue,
    dataKeys,
  });
  let holdNext = false;
  process.on('SIGUSR2', () => {
    holdNext = true;
  });
  const outcomes = new pg.Pool({ connectionString: config.DATABASE_URL, max: 2 });
  const logger = {
    warn: (_: object, msg: string) => process.stderr.write(`warn: ${msg}\n`),
    error: (_: object, msg: string) => process.stderr.write(`error: ${msg}\n`),
  };
  // As the gateway builds its runners: one per partition, on the process's hosts session.
  const { runners, hosts } = partitionedRunners(
    [
      {
        name: 'outcomes',
        aggregate: 'cart',
        eventTypes: ['ItemRemoved'],
        handle: async (event) => {
          await outcomes.query(
            `INSERT INTO ${config.READ_MODEL_SCHEMA}.reaction_outcomes (event_id, cart_id, sequence, handled_by)
           VALUES ($1, $2, $3, $4)
           ON CONFLICT (event_id) DO UPDATE SET handlings = reaction_outcomes.handlings + 1`,
            [event.id, event.aggregateId, event.sequence, process.pid],
          );
          if (holdNext) {
            holdNext = false;
            process.stdout.write(`holding ${event.id}\n`);
            await new Promise(() => undefined);
          }
          // The rest of a reaction's work after its effect (an outside call's answer, say):
          // the window in which a killed process has recorded outcomes it never acknowledged.
          await sleep(50);
        },
      },
    ],
    config.STREAM_PARTITIONS,
    { store, logger, databaseUrl: config.DATABASE_URL },
  );
  await Promise.all(runners.map((r) => r.start()));
  process.stdout.write('reacting\n');
  return {
    async stop() {
      await Promise.all(runners.map((r) => r.stop()));
      await hosts?.close();
      await nc.drain();
      await outcomes.end();
      await database.close();
    },
  };
});
