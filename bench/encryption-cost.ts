import { randomBytes } from 'node:crypto';
import { Kysely, sql } from 'kysely';
import { NatsConnection } from 'nats';
import { EventCatalogue, eventCatalogue } from '@shop/contracts';
import { EventStore } from '@shop/eventstore';
import { rebuildProjections } from '@shop/projections';
import { readModelProjections } from '@shop/read-models';
import { openDataKeyVault } from '@shop/wallets';
import { appendHistory } from './event-history';

/** The catalogue as it was before personal fields were sealed: the baseline of the same build. */
const clearCatalogue = new EventCatalogue(
  eventCatalogue.definitions.map((d) => ({ ...d, personalData: [] })),
);

export interface EncryptionCostSide {
  events: number;
  appendSeconds: number;
  appendEventsPerSecond: number;
  rebuildSeconds: number;
  rebuildEventsPerSecond: number;
}

export interface EncryptionCost {
  users: number;
  rounds: number;
  /** Best round of each side: the machine is shared, so the least disturbed round counts. */
  clear: EncryptionCostSide;
  sealed: EncryptionCostSide;
  /** Extra time of the sealed side over the clear one, in percent. */
  writeOverheadPercent: number;
  rebuildOverheadPercent: number;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * What sealing personal fields costs: the same user histories appended, then every read-model
 * projection rebuilt from them, once with the clear catalogue and once sealed under data keys
 * (cold key cache on rebuild, so key loads are counted). Sides alternate over `rounds`.
 */
export async function measureEncryptionCost(options: {
  nc: NatsConnection;
  db: Kysely<unknown>;
  /** Prefix of this run's streams and schemas; all of them are removed afterwards. */
  name: string;
  users: number;
  rounds: number;
  log: (line: string) => void;
}): Promise<EncryptionCost> {
  const { nc, db, name, log } = options;
  const keysSchema = `${name}_keys`;
  const masterKey = randomBytes(32);
  const best: Record<'clear' | 'sealed', EncryptionCostSide | null> = { clear: null, sealed: null };
  try {
    for (let r = 0; r < options.rounds; r++) {
      for (const side of ['clear', 'sealed'] as const) {
        const id = `${name}_${side}${r}`;
        const writeKeys = side === 'sealed' ? await openDataKeyVault(db, keysSchema, masterKey) : undefined;
        const open = (dataKeys = writeKeys) =>
          EventStore.create(nc, {
            stream: id.toUpperCase(),
            subjectPrefix: id.replace(/_/g, ''),
            catalogue: side === 'sealed' ? eventCatalogue : clearCatalogue,
            dataKeys,
          });
        const store = await open();
        await store.ensureStream();
        log(`encryption cost: round ${r + 1}, ${side}: appending ${options.users} user histories`);
        let started = performance.now();
        const events = await appendHistory(store, options.users, 256);
        const appendSeconds = (performance.now() - started) / 1000;
        // A fresh vault: the rebuild loads every key it needs, as a new process would.
        const reader =
          side === 'sealed' ? await open(await openDataKeyVault(db, keysSchema, masterKey)) : store;
        started = performance.now();
        const rebuilt = await rebuildProjections({
          store: reader,
          db,
          schema: id,
          projections: readModelProjections(),
        });
        const rebuildSeconds = (performance.now() - started) / 1000;
        if (rebuilt.events !== events)
          throw new Error(`rebuild applied ${rebuilt.events} of ${events} events`);
        await store.jsm.streams.delete(store.stream).catch(() => undefined);
        await sql`DROP SCHEMA IF EXISTS ${sql.id(id)} CASCADE`.execute(db);
        const result = {
          events,
          appendSeconds: round(appendSeconds),
          appendEventsPerSecond: Math.round(events / appendSeconds),
          rebuildSeconds: round(rebuildSeconds),
          rebuildEventsPerSecond: Math.round(events / rebuildSeconds),
        };
        log(`  ${side}: append ${result.appendSeconds} s, rebuild ${result.rebuildSeconds} s`);
        const previous = best[side];
        best[side] = previous
          ? {
              ...result,
              appendSeconds: Math.min(previous.appendSeconds, result.appendSeconds),
              appendEventsPerSecond: Math.max(previous.appendEventsPerSecond, result.appendEventsPerSecond),
              rebuildSeconds: Math.min(previous.rebuildSeconds, result.rebuildSeconds),
              rebuildEventsPerSecond: Math.max(
                previous.rebuildEventsPerSecond,
                result.rebuildEventsPerSecond,
              ),
            }
          : result;
      }
    }
  } finally {
    await sql`DROP SCHEMA IF EXISTS ${sql.id(keysSchema)} CASCADE`.execute(db);
  }
  const clear = best.clear!;
  const sealed = best.sealed!;
  return {
    users: options.users,
    rounds: options.rounds,
    clear,
    sealed,
    writeOverheadPercent: round((sealed.appendSeconds / clear.appendSeconds - 1) * 100, 1),
    rebuildOverheadPercent: round((sealed.rebuildSeconds / clear.rebuildSeconds - 1) * 100, 1),
  };
}
