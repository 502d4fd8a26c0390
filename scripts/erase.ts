import { randomUUID } from 'node:crypto';
import { Kysely } from 'kysely';
import { z } from 'zod';
import { dataEncryptionKey, loadConfigOrExit, productionRules, sharedEnv } from '@shop/config';
import { eventCatalogue } from '@shop/contracts';
import { createDatabase } from '@shop/db';
import { DeciderRunner } from '@shop/commands';
import { DomainError, userAggregate } from '@shop/domain';
import { connectNats, EventStore } from '@shop/eventstore';
import { PositionTracker, ReadModelPositions } from '@shop/projections';
import { erasureReadModels, readModel, readModelProjections } from '@shop/read-models';
import { eraseAccount, openDataKeyVault } from '@shop/wallets';

const usage = `Usage: npm run erase -- user <user-id>
  user <user-id>   close the account and destroy the data keys of the user and their chat
                   sessions: every personal field of theirs in the stream becomes unreadable
                   (refused while one of their orders is open)
`;

const readModelWaitMs = 30_000;

/** The operator's side of an erasure request: the same closure a user can ask for themselves. */
async function main(argv: readonly string[]): Promise<number> {
  const [kind, userId] = argv;
  if (kind !== 'user' || !z.uuid().safeParse(userId).success) {
    process.stderr.write(usage);
    return 64;
  }
  const config = loadConfigOrExit(sharedEnv.check(productionRules()), 'erase');
  const database = createDatabase(config.DATABASE_URL, { max: 2, applicationName: 'erase' });
  const nc = await connectNats(config, 'erase');
  const tracker = new PositionTracker(nc, database.db, config.READ_MODEL_SCHEMA, config.EVENT_SUBJECT_PREFIX);
  try {
    await tracker.start();
    const positions = new ReadModelPositions(tracker, readModelProjections(), 0, config.STREAM_PARTITIONS);
    const dataKeys = await openDataKeyVault(
      database.db as Kysely<unknown>,
      config.SECRETS_SCHEMA,
      dataEncryptionKey(config),
    );
    const store = await EventStore.create(nc, {
      stream: config.EVENT_STREAM,
      subjectPrefix: config.EVENT_SUBJECT_PREFIX,
      catalogue: eventCatalogue,
      owner: 'operator',
      dataKeys,
    });
    const runner = new DeciderRunner(store);
    const readModelDb = readModel(database.db, config.READ_MODEL_SCHEMA);
    const result = await eraseAccount(
      {
        stream: store,
        dataKeys,
        // The projector has to catch up with the stream's head first; an operator can wait longer than a user.
        ...erasureReadModels(positions, readModelDb, readModelWaitMs),
        closeAccount: (id, command) =>
          runner.run(userAggregate, id, command, {
            commandId: randomUUID(),
            correlationId: randomUUID(),
            causationId: null,
            actor: { kind: 'operator', id: null },
          }),
      },
      userId!,
      'operator',
    );
    process.stdout.write(
      `user ${userId}: account closed; user key and ${result.sessions} session keys destroyed\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    process.stderr.write(`erase refused: ${error.code}: ${error.message}\n`);
    return 1;
  } finally {
    tracker.stop();
    await nc.drain();
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`erase failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 70;
  },
);
