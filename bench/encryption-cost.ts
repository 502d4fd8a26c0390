import { randomBytes } from 'node:crypto';
import { Kysely, sql } from 'kysely';
import { NatsConnection } from 'nats';
import { dataKeyIdFor, EventCatalogue, eventCatalogue } from '@shop/contracts';
import { EventStore } from '@shop/eventstore';
import { rebuildProjections } from '@shop/projections';
import { readModelMigrations, readModelProjections } from '@shop/read-models';
import { openDataKeyVault } from '@shop/wallets';
import { appendChains, subjectsOf, userHistories } from './event-history';

/** The catalogue as it was before personal fields were sealed: the baseline of the same build. */
const clearCatalogue = new EventCatalogue(
  eventCatalogue.definitions.map((d) => ({ ...d, personalData: [] })),
);

export interface EncryptionCostSide {
  events: number;
  appendSeconds: number;
  appendEventsPerSecond: number;
  /** Absent for `sealedKnownKeys`: its stream rebuilds like `sealed`. */
  rebuildSeconds?: number;
  rebuildEventsPerSecond?: number;
}

type Side = 'clear' | 'sealed' | 'sealedKnownKeys';

export interface EncryptionCost {
  users: number;
  rounds: number;
  /**
   * Best round of each side (the machine is shared: the least disturbed round counts). `sealed`
   * writes new subjects, so each user's and session's first event also creates its data key;
   * `sealedKnownKeys` writes subjects whose keys exist, as every later command does.
   */
  clear: EncryptionCostSide;
  sealed: EncryptionCostSide;
  sealedKnownKeys: EncryptionCostSide;
  /** Extra time over the clear side, in percent. */
  writeOverheadPercent: number;
  writeOverheadKnownKeysPercent: number;
  rebuildOverheadPercent: number;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

function better(a: EncryptionCostSide | undefined, b: EncryptionCostSide): EncryptionCostSide {
  if (!a) return b;
  return {
    events: b.events,
    appendSeconds: Math.min(a.appendSeconds, b.appendSeconds),
    appendEventsPerSecond: Math.max(a.appendEventsPerSecond, b.appendEventsPerSecond),
    ...(b.rebuildSeconds !== undefined && {
      rebuildSeconds: Math.min(a.rebuildSeconds!, b.rebuildSeconds),
      rebuildEventsPerSecond: Math.max(a.rebuildEventsPerSecond!, b.rebuildEventsPerSecond!),
    }),
  };
}

/**
 * What sealing personal fields costs: the same kind of user histories appended, then every
 * read-model projection rebuilt from them, with the clear catalogue and sealed under data keys
 * (a cold key cache on rebuild, so key loads count). Sides alternate over `rounds`.
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
  const best: Partial<Record<Side, EncryptionCostSide>> = {};
  try {
    for (let r = 0; r < options.rounds; r++) {
      for (const side of ['clear', 'sealed', 'sealedKnownKeys'] as const) {
        const id = `${name}_${side.toLowerCase()}${r}`;
        const sealed = side !== 'clear';
        const writeKeys = sealed ? await openDataKeyVault(db, keysSchema, masterKey) : undefined;
        const open = (dataKeys = writeKeys) =>
          EventStore.create(nc, {
            stream: id.toUpperCase(),
            subjectPrefix: id.replace(/_/g, ''),
            catalogue: sealed ? eventCatalogue : clearCatalogue,
            dataKeys,
          });
        const store = await open();
        await store.ensureStream();
        const chains = userHistories(options.users);
        if (side === 'sealedKnownKeys') {
          const keyIds = new Set(
            subjectsOf(chains)
              .filter(([aggregate]) => aggregate === 'user' || aggregate === 'session')
              .map(([aggregate, subjectId]) => dataKeyIdFor(aggregate, subjectId)),
          );
          for (const keyId of keyIds) await writeKeys!.keyForWriting(keyId);
        }
        log(`encryption cost: round ${r + 1}, ${side}: appending ${options.users} user histories`);
        let started = performance.now();
        const events = await appendChains(store, chains, 256);
        const appendSeconds = (performance.now() - started) / 1000;
        let result: EncryptionCostSide = {
          events,
          appendSeconds: round(appendSeconds),
          appendEventsPerSecond: Math.round(events / appendSeconds),
        };
        if (side !== 'sealedKnownKeys') {
          // A fresh vault: the rebuild loads every key it needs, as a new process would.
          const reader = sealed ? await open(await openDataKeyVault(db, keysSchema, masterKey)) : store;
          started = performance.now();
          const rebuilt = await rebuildProjections({
            store: reader,
            db,
            schema: id,
            projections: readModelProjections(),
            migrations: readModelMigrations,
          });
          const rebuildSeconds = (performance.now() - started) / 1000;
          if (rebuilt.events !== events)
            throw new Error(`rebuild applied ${rebuilt.events} of ${events} events`);
          result = {
            ...result,
            rebuildSeconds: round(rebuildSeconds),
            rebuildEventsPerSecond: Math.round(events / rebuildSeconds),
          };
          await sql`DROP SCHEMA IF EXISTS ${sql.id(id)} CASCADE`.execute(db);
        }
        await store.jsm.streams.delete(store.stream).catch(() => undefined);
        log(`  ${side}: append ${result.appendSeconds} s, rebuild ${result.rebuildSeconds ?? '-'} s`);
        best[side] = better(best[side], result);
      }
    }
  } finally {
    await sql`DROP SCHEMA IF EXISTS ${sql.id(keysSchema)} CASCADE`.execute(db);
  }
  const { clear, sealed, sealedKnownKeys } = best as Record<Side, EncryptionCostSide>;
  const overhead = (a: number, b: number) => round((a / b - 1) * 100, 1);
  return {
    users: options.users,
    rounds: options.rounds,
    clear,
    sealed,
    sealedKnownKeys,
    writeOverheadPercent: overhead(sealed.appendSeconds, clear.appendSeconds),
    writeOverheadKnownKeysPercent: overhead(sealedKnownKeys.appendSeconds, clear.appendSeconds),
    rebuildOverheadPercent: overhead(sealed.rebuildSeconds!, clear.rebuildSeconds!),
  };
}
