import { Kysely } from 'kysely';
import { loadConfigOrExit, sharedEnv } from '@shop/config';
import { createDatabase, ensureDatabase } from '@shop/db';
import { migrateReadModel } from '@shop/read-models';
import { natsOperatorStep } from '../services/projector/src/nats-operator-step';

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
  await natsOperatorStep(config, (line) => process.stdout.write(`${line}\n`));
}

main().catch((error: unknown) => {
  process.stderr.write(`migrate failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
