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
  /** Medians over the rounds (wall time, and CPU time of this process), each round's wall time beside. */
  appendSeconds: number;
  appendCpuSeconds: number;
  appendEventsPerSecond: number;
  appendSecondsPerRound: number[];
  /** Absent for `sealedKnownKeys`: its stream rebuilds like `sealed`. */
  rebuildSeconds?: number;
  rebuildCpuSeconds?: number;
  rebuildEventsPerSecond?: number;
  rebuildSecondsPerRound?: number[];
}

type Side = 'clear' | 'sealed' | 'sealedKnownKeys';
const sides: readonly Side[] = ['clear', 'sealed', 'sealedKnownKeys'];

interface Timing {
  seconds: number;
  /** User and system CPU time of this process: it does not stretch when other work shares the cores. */
  cpuSeconds: number;
}

interface RoundResult {
  events: number;
  append: Timing;
  rebuild?: Timing;
}

/** Extra time over the clear side, in percent: the median of the rounds' own ratios. */
export interface Overheads {
  write: number;
  writeKnownKeys: number;
  rebuild: number;
}

export interface EncryptionCost {
  users: number;
  rounds: number;
  /**
   * `sealed` writes new subjects, so each user's and session's first event also creates its data
   * key; `sealedKnownKeys` writes subjects whose keys exist, as every later command does.
   */
  clear: EncryptionCostSide;
  sealed: EncryptionCostSide;
  sealedKnownKeys: EncryptionCostSide;
  /**
   * Wall time, each round's sides compared with each other: the machine is shared, and a ratio of
   * runs seconds apart moves less with other work than a ratio of medians taken minutes apart.
   */
  writeOverheadPercent: number;
  writeOverheadKnownKeysPercent: number;
  rebuildOverheadPercent: number;
  /** The same ratios of this process's CPU time (the NATS server's and Postgres's work is not in it). */
  cpuOverheadPercent: Overheads;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function timed<T>(work: () => Promise<T>): Promise<[T, Timing]> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await work();
  const used = process.cpuUsage(cpu);
  return [
    result,
    { seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6 },
  ];
}

function summarize(rounds: readonly RoundResult[]): EncryptionCostSide {
  const events = rounds[0]!.events;
  const append = rounds.map((r) => r.append.seconds);
  const side: EncryptionCostSide = {
    events,
    appendSeconds: round(median(append)),
    appendCpuSeconds: round(median(rounds.map((r) => r.append.cpuSeconds))),
    appendEventsPerSecond: Math.round(events / median(append)),
    appendSecondsPerRound: append.map((s) => round(s)),
  };
  if (!rounds[0]!.rebuild) return side;
  const rebuild = rounds.map((r) => r.rebuild!.seconds);
  return {
    ...side,
    rebuildSeconds: round(median(rebuild)),
    rebuildCpuSeconds: round(median(rounds.map((r) => r.rebuild!.cpuSeconds))),
    rebuildEventsPerSecond: Math.round(events / median(rebuild)),
    rebuildSecondsPerRound: rebuild.map((s) => round(s)),
  };
}

function overheads(results: Record<Side, RoundResult[]>, measure: keyof Timing): Overheads {
  const ratio = (side: Side, phase: 'append' | 'rebuild') =>
    round(
      (median(results[side].map((r, i) => r[phase]![measure] / results.clear[i]![phase]![measure])) - 1) *
        100,
      1,
    );
  return {
    write: ratio('sealed', 'append'),
    writeKnownKeys: ratio('sealedKnownKeys', 'append'),
    rebuild: ratio('sealed', 'rebuild'),
  };
}

/**
 * What sealing personal fields costs: the same kind of user histories appended, then every
 * read-model projection rebuilt from them, with the clear catalogue and sealed under data keys
 * (a cold key cache on rebuild, so key loads count). Each round runs every side, starting with
 * another one each time.
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
  const results: Record<Side, RoundResult[]> = { clear: [], sealed: [], sealedKnownKeys: [] };
  try {
    for (let r = 0; r < options.rounds; r++) {
      for (const side of [...sides.slice(r % sides.length), ...sides.slice(0, r % sides.length)]) {
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
          await Promise.all([...keyIds].map((keyId) => writeKeys!.keyForWriting(keyId)));
        }
        log(`encryption cost: round ${r + 1}, ${side}: appending ${options.users} user histories`);
        const [events, append] = await timed(() => appendChains(store, chains, 256));
        const result: RoundResult = { events, append };
        if (side !== 'sealedKnownKeys') {
          // A fresh vault: the rebuild loads every key it needs, as a new process would.
          const reader = sealed ? await open(await openDataKeyVault(db, keysSchema, masterKey)) : store;
          const [rebuilt, rebuild] = await timed(() =>
            rebuildProjections({
              store: reader,
              db,
              schema: id,
              projections: readModelProjections(),
              migrations: readModelMigrations,
            }),
          );
          if (rebuilt.events !== events)
            throw new Error(`rebuild applied ${rebuilt.events} of ${events} events`);
          result.rebuild = rebuild;
          await sql`DROP SCHEMA IF EXISTS ${sql.id(id)} CASCADE`.execute(db);
        }
        await store.jsm.streams.delete(store.stream).catch(() => undefined);
        const figures = (t: Timing | undefined) =>
          t ? `${round(t.seconds)} s (cpu ${round(t.cpuSeconds)} s)` : '-';
        log(`  ${side}: append ${figures(append)}, rebuild ${figures(result.rebuild)}`);
        results[side].push(result);
      }
    }
  } finally {
    await sql`DROP SCHEMA IF EXISTS ${sql.id(keysSchema)} CASCADE`.execute(db);
  }
  const wall = overheads(results, 'seconds');
  return {
    users: options.users,
    rounds: options.rounds,
    clear: summarize(results.clear),
    sealed: summarize(results.sealed),
    sealedKnownKeys: summarize(results.sealedKnownKeys),
    writeOverheadPercent: wall.write,
    writeOverheadKnownKeysPercent: wall.writeKnownKeys,
    rebuildOverheadPercent: wall.rebuild,
    cpuOverheadPercent: overheads(results, 'cpuSeconds'),
  };
}
