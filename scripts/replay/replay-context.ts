import { Kysely } from 'kysely';
import { eventCatalogue } from '@shop/contracts';
import { dataEncryptionKey, SharedConfig } from '@shop/config';
import { createDatabase } from '@shop/db';
import { connectNats, EventStore } from '@shop/eventstore';
import { projectionUnits } from '@shop/projections';
import { ReadModelDatabase, ReadModelProjection } from '@shop/read-models';
import { openDataKeyVault } from '@shop/wallets';
import { ProgressReporter } from './progress';

export interface ReplayContext {
  store: EventStore;
  db: Kysely<ReadModelDatabase>;
  liveSchema: string;
  /** Every projection of the read model. */
  projections: readonly ReadModelProjection[];
  /** STREAM_PARTITIONS: a rebuild writes the checkpoint rows the live runners of that many read. */
  partitions: number;
  /** Results, on stdout. */
  print(text: string): void;
  /** Progress and notes, on stderr. */
  progress: ProgressReporter;
  now(): Date;
}

/** The picked projections in the registry's order; all of them when none is picked. */
export function selectProjections(
  all: readonly ReadModelProjection[],
  names: readonly string[],
): ReadModelProjection[] {
  return names.length === 0 ? [...all] : all.filter((p) => names.includes(p.name));
}

/**
 * What a rebuild applies: each partitioned projection as its partitions (their own checkpoint
 * rows, written side by side), so the live runners continue from them after a swap.
 */
export function unitsOf(
  ctx: ReplayContext,
  projections: readonly ReadModelProjection[],
): ReadModelProjection[] {
  return projectionUnits(() => projections, ctx.partitions) as ReadModelProjection[];
}

export async function openReplayContext(
  config: SharedConfig,
  projections: readonly ReadModelProjection[],
): Promise<ReplayContext & { close(): Promise<void> }> {
  const nc = await connectNats(config, 'replay');
  // One connection holds the live pause while the others write the rebuild and compare.
  const database = createDatabase(config.DATABASE_URL, { max: 6, applicationName: 'replay' });
  try {
    const store = await EventStore.create(nc, {
      stream: config.EVENT_STREAM,
      subjectPrefix: config.EVENT_SUBJECT_PREFIX,
      catalogue: eventCatalogue,
      owner: 'replay',
      dataKeys: await openDataKeyVault(
        database.db as Kysely<unknown>,
        config.SECRETS_SCHEMA,
        dataEncryptionKey(config),
      ),
    });
    // Fails here, clearly, when the stream is missing; a replay never creates or changes it.
    await store.lastStreamSequence();
    return {
      store,
      db: database.db,
      liveSchema: config.READ_MODEL_SCHEMA,
      projections,
      partitions: config.STREAM_PARTITIONS,
      print: (text) => process.stdout.write(`${text}\n`),
      progress: new ProgressReporter(process.stderr),
      now: () => new Date(),
      async close() {
        await database.close();
        await nc.drain();
      },
    };
  } catch (error) {
    await database.close();
    await nc.close();
    throw error;
  }
}
