import { Kysely } from 'kysely';
import { loadConfigOrExit, sharedEnv } from '@shop/config';
import { createDatabase, ensureDatabase } from '@shop/db';
import { connectNats, provisionEventStream } from '@shop/eventstore';
import { moveLegacyConsumers } from '@shop/reactions';
import { migrateReadModel } from '@shop/read-models';

/**
 * `npm run migrate`, the operator step: the database and the read-model schema at the latest
 * migration; the event stream and the snapshot bucket as infra/ defines them; consumers of an
 * earlier version moved to their owners' names. Under the operator's NATS user: no service user
 * may create or change the stream or the bucket.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit(sharedEnv, 'migrate');
  if (await ensureDatabase(config.DATABASE_URL))
    process.stdout.write(`created database ${new URL(config.DATABASE_URL).pathname.slice(1)}\n`);
  const database = createDatabase(config.DATABASE_URL, { max: 1 });
  try {
    const applied = await migrateReadModel(database.db as Kysely<unknown>, config.READ_MODEL_SCHEMA);
    process.stdout.write(
      `schema ${config.READ_MODEL_SCHEMA}: ${applied.length ? `applied ${applied.join(', ')}` : 'up to date'}\n`,
    );
  } finally {
    await database.close();
  }
  const nc = await connectNats(config, 'migrate');
  try {
    const provisioned = await provisionEventStream(nc, {
      stream: config.EVENT_STREAM,
      subjectPrefix: config.EVENT_SUBJECT_PREFIX,
      replicas: config.EVENT_STREAM_REPLICAS,
    });
    process.stdout.write(
      `stream ${config.EVENT_STREAM}: ${provisioned.stream}; snapshot bucket: ${provisioned.bucket}\n` +
        provisioned.differences.map((d) => `  differed: ${d}\n`).join(''),
    );
    for (const move of await moveLegacyConsumers(await nc.jetstreamManager(), config.EVENT_STREAM)) {
      process.stdout.write(
        move.to
          ? `consumer ${move.from} moved to ${move.to} (from sequence ${move.startsAt})\n`
          : `consumer ${move.from} removed (its projection re-creates it from its checkpoint)\n`,
      );
    }
  } finally {
    await nc.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`migrate failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
