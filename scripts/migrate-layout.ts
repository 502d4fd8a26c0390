import { loadConfigOrExit, sharedEnv } from '@shop/config';
import { connectNats, migrateSubjectLayout } from '@shop/eventstore';

/**
 * `npm run migrate-layout`: moves an event stream of the first subject layout to the current one
 * (migrateSubjectLayout), under the operator's NATS user, with every service stopped. Run again
 * after a crash, it carries on where it stopped. Then `npm run migrate` and a rebuild of the
 * read models (docs/operations.md, "Moving the stream to the partitioned subject layout").
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit(sharedEnv, 'migrate-layout');
  const nc = await connectNats(config, 'operator-step');
  try {
    const outcome = await migrateSubjectLayout(
      nc,
      {
        stream: config.EVENT_STREAM,
        subjectPrefix: config.EVENT_SUBJECT_PREFIX,
        replicas: config.EVENT_STREAM_REPLICAS,
      },
      (line) => process.stdout.write(`${line}\n`),
    );
    if (outcome.steps.some((step) => step.startsWith('4/5')))
      process.stdout.write(
        `next: npm run migrate, then rebuild the read models (npm run replay -- rebuild)${
          outcome.renumbered ? ' and reset every reaction (docs/operations.md)' : ''
        }\n`,
      );
  } finally {
    await nc.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`migrate-layout failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
