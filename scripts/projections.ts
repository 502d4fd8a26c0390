import { Kysely } from 'kysely';
import { dataEncryptionKey, gatewayEnv, loadConfigOrExit } from '@shop/config';
import { eventCatalogue } from '@shop/contracts';
import { createDatabase, DatabaseHandle, ReactionsDatabase } from '@shop/db';
import { connectNats, EventStore } from '@shop/eventstore';
import { listParked, projectionUnits, releaseParked } from '@shop/projections';
import { PostgresReactionParking } from '@shop/reactions';
import { readModelProjections } from '@shop/read-models';
import { openDataKeyVault } from '@shop/wallets';

const usage = `Usage: npm run projections -- <command>
  parked                                list the parked subjects of every projection, and the
                                        events process managers parked (retried every 30 s)
  retry <projection> <subject>          apply a parked subject's waiting events again, then unpark it
  skip <projection> <subject>           drop the poison event, apply the rest, then unpark it
  drop-reaction <reaction> <sequence>   stop retrying one parked process-manager event
`;

const parkingIn = (database: DatabaseHandle, schema: string) =>
  new PostgresReactionParking(database.db.withSchema(schema) as unknown as Kysely<ReactionsDatabase>);

/** Operator commands for what was parked after repeated failures: projection subjects and process-manager events. */
async function main(): Promise<number> {
  const [command, projectionName, subject] = process.argv.slice(2);
  if (!command || !['parked', 'retry', 'skip', 'drop-reaction'].includes(command)) {
    process.stderr.write(usage);
    return 64;
  }
  const config = loadConfigOrExit(gatewayEnv, 'projections');
  // Two: a release holds one in its transaction while the data keys of what it decodes load on the other.
  const database = createDatabase(config.DATABASE_URL, { max: 2, applicationName: 'projections-cli' });
  try {
    if (command === 'parked') {
      const parked = await listParked(database.db, config.READ_MODEL_SCHEMA);
      if (parked.length === 0) process.stdout.write('no parked subjects\n');
      for (const p of parked) {
        process.stdout.write(
          `${p.projection}\t${p.subject}\tfrom sequence ${p.sequence}\t${p.waiting} waiting\t${p.attempts} attempts\t${p.error}\n`,
        );
      }
      const reactions = await parkingIn(database, config.REACTIONS_SCHEMA)
        .all()
        .catch(() => []);
      for (const r of reactions) {
        process.stdout.write(
          `reaction ${r.reaction}\t${r.subject}\tsequence ${r.sequence}\t${r.attempts} attempts\t${r.error}\n`,
        );
      }
      return 0;
    }
    if (command === 'drop-reaction') {
      const [reaction, sequence] = [projectionName, Number(subject)];
      if (!reaction || !Number.isSafeInteger(sequence)) {
        process.stderr.write(usage);
        return 64;
      }
      await parkingIn(database, config.REACTIONS_SCHEMA).release(reaction, sequence);
      process.stdout.write(`reaction ${reaction}: sequence ${sequence} dropped\n`);
      return 0;
    }
    // A partition parks under its own name (`cart_items-p2of4`), as `parked` lists it.
    const units = projectionUnits(() => readModelProjections(), config.STREAM_PARTITIONS);
    const projection = units.find((p) => p.name === projectionName);
    if (!projection || !subject) {
      process.stderr.write(`${usage}\nknown projections: ${units.map((p) => p.name).join(', ')}\n`);
      return 64;
    }
    const nc = await connectNats(config, 'projections-cli');
    try {
      const store = await EventStore.create(nc, {
        stream: config.EVENT_STREAM,
        subjectPrefix: config.EVENT_SUBJECT_PREFIX,
        catalogue: eventCatalogue,
        owner: 'operator',
        dataKeys: await openDataKeyVault(
          database.db as Kysely<unknown>,
          config.SECRETS_SCHEMA,
          dataEncryptionKey(config),
        ),
      });
      const result = await releaseParked({
        store,
        db: database.db,
        schema: config.READ_MODEL_SCHEMA,
        projection,
        subject,
        mode: command as 'retry' | 'skip',
      });
      process.stdout.write(`${subject}: applied ${result.applied}, skipped ${result.skipped}; unparked\n`);
      return 0;
    } finally {
      await nc.drain();
    }
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`projections: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(70);
  },
);
