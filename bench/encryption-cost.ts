import { randomBytes } from 'node:crypto';
import { Kysely, sql } from 'kysely';
import { NatsConnection } from 'nats';
import { dataKeyIdFor, EventCatalogue, eventCatalogue } from '@shop/contracts';
import { DataKeys, EventStore, holdsPersonalData } from '@shop/eventstore';
import { rebuildProjections } from '@shop/projections';
import { readModelMigrations, readModelProjections } from '@shop/read-models';
import { openDataKeyVault } from '@shop/wallets';
import { appendChains, Step, subjectsOf, userHistories } from './event-history';

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

function openStore(
  nc: NatsConnection,
  id: string,
  sealed: boolean,
  dataKeys?: DataKeys,
): Promise<EventStore> {
  return EventStore.create(nc, {
    stream: id.toUpperCase(),
    subjectPrefix: id.replace(/_/g, ''),
    catalogue: sealed ? eventCatalogue : clearCatalogue,
    dataKeys,
  });
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
  /** Events of a round (on every side) that hold personal data: the ones a sealed side seals. */
  sealedEvents: number;
  sealed: EncryptionCostSide;
  sealedKnownKeys: EncryptionCostSide;
  /** Slices each round's appends were cut into, every side's slice timed next to the others'. */
  slices: number;
  /**
   * Wall time, medians of paired samples: the appends of one slice of the histories on each side,
   * run back to back (the rebuilds: each round's, side by side). The machine is shared, and a
   * ratio of runs seconds apart moves less with other work than a ratio of totals taken minutes apart.
   */
  writeOverheadPercent: number;
  writeOverheadKnownKeysPercent: number;
  rebuildOverheadPercent: number;
  /** The same ratios of this process's CPU time (the NATS server's and Postgres's work is not in it). */
  cpuOverheadPercent: Overheads;
  /** How far the paired samples behind each median spread. */
  wallOverheadSpreadPercent: Record<keyof Overheads, OverheadSpread>;
  cpuOverheadSpreadPercent: Record<keyof Overheads, OverheadSpread>;
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

/** Extra time over the clear side in percent, of paired samples: their median and quartiles. */
export interface OverheadSpread {
  median: number;
  lowerQuartile: number;
  upperQuartile: number;
  samples: number;
}

function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  return sorted[below]! + (sorted[Math.ceil(at)]! - sorted[below]!) * (at - below);
}

function spread(sealed: readonly Timing[], clear: readonly Timing[], measure: keyof Timing): OverheadSpread {
  const percents = sealed.map((t, i) => (t[measure] / clear[i]![measure] - 1) * 100).sort((a, b) => a - b);
  return {
    median: round(quantile(percents, 0.5), 1),
    lowerQuartile: round(quantile(percents, 0.25), 1),
    upperQuartile: round(quantile(percents, 0.75), 1),
    samples: percents.length,
  };
}

function overheads(
  results: Record<Side, RoundResult[]>,
  slices: Record<Side, Timing[]>,
  measure: keyof Timing,
): Record<keyof Overheads, OverheadSpread> {
  const rebuilds = (side: Side) => results[side].map((r) => r.rebuild!);
  return {
    write: spread(slices.sealed, slices.clear, measure),
    writeKnownKeys: spread(slices.sealedKnownKeys, slices.clear, measure),
    rebuild: spread(rebuilds('sealed'), rebuilds('clear'), measure),
  };
}

const medians = (spreads: Record<keyof Overheads, OverheadSpread>): Overheads => ({
  write: spreads.write.median,
  writeKnownKeys: spreads.writeKnownKeys.median,
  rebuild: spreads.rebuild.median,
});

/** Collects garbage when the bench runs with --expose-gc, so no phase pays for the one before it. */
const collectGarbage = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/**
 * Paired append samples per round. Few: each slice starts its pipeline full at once, and first
 * uses that start together share one key insert, where later chains start one by one as earlier
 * ones end, as users arrive; more slices would make key creation look cheaper than it is.
 */
export const APPEND_SLICES = 2;

/** Users of the warm-up round, which is run and thrown away so no side pays for compiling the code. */
const WARM_UP_USERS = 200;

/**
 * What sealing personal fields costs: the same kind of user histories appended, then every
 * read-model projection rebuilt from them, with the clear catalogue and sealed under data keys
 * (a cold key cache on rebuild, so key loads count). An untimed warm-up round comes first. Each
 * round appends its histories slice by slice, every side in turn (each slice starting with
 * another side), so each slice gives one paired sample per side; only then does it rebuild: a
 * timed append never follows a rebuild, a schema drop or a stream deletion, whose aftermath in
 * Postgres and NATS would fall on whichever side came next.
 */
export async function measureEncryptionCost(options: {
  nc: NatsConnection;
  db: Kysely<unknown>;
  /** Prefix of this run's streams and schemas; all of them are removed afterwards. */
  name: string;
  users: number;
  rounds: number;
  /** Slices each round's appends are cut into (APPEND_SLICES when not given). */
  slices?: number;
  log: (line: string) => void;
}): Promise<EncryptionCost> {
  const { nc, db, name, log } = options;
  const keysSchema = `${name}_keys`;
  const masterKey = randomBytes(32);
  const results: Record<Side, RoundResult[]> = { clear: [], sealed: [], sealedKnownKeys: [] };
  /** Every timed slice's append, in the same order on each side: index i of each is one slice. */
  const sliceTimings: Record<Side, Timing[]> = { clear: [], sealed: [], sealedKnownKeys: [] };
  const slices = options.slices ?? APPEND_SLICES;
  let sealedEvents = 0;
  const figures = (t: Timing | undefined) =>
    t ? `${round(t.seconds)} s (cpu ${round(t.cpuSeconds)} s)` : '-';
  try {
    for (let r = -1; r < options.rounds; r++) {
      const warmUp = r < 0;
      const users = warmUp ? Math.min(WARM_UP_USERS, options.users) : options.users;
      const label = warmUp ? 'warm-up' : `round ${r + 1}`;
      const shift = (r + sides.length) % sides.length;
      const order = [...sides.slice(shift), ...sides.slice(0, shift)];
      const prepared = new Map<Side, { store: EventStore; chains: Step[][]; id: string }>();
      for (const side of order) {
        const id = `${name}_${side.toLowerCase()}${warmUp ? 'w' : r}`;
        const sealed = side !== 'clear';
        const dataKeys = sealed ? await openDataKeyVault(db, keysSchema, masterKey) : undefined;
        const store = await openStore(nc, id, sealed, dataKeys);
        await store.provision();
        const chains = userHistories(users);
        if (!warmUp && side === 'sealed')
          sealedEvents = chains
            .flat()
            .filter(([, , e]) => holdsPersonalData(eventCatalogue, e.type, e.data)).length;
        if (side === 'sealedKnownKeys') {
          const keyIds = new Set(
            subjectsOf(chains)
              .filter(([aggregate]) => aggregate === 'user' || aggregate === 'session')
              .map(([aggregate, subjectId]) => dataKeyIdFor(aggregate, subjectId)),
          );
          await Promise.all([...keyIds].map((keyId) => dataKeys!.keyForWriting(keyId)));
        }
        prepared.set(side, { store, chains, id });
      }
      const measured: Partial<Record<Side, RoundResult>> = {};
      for (const side of sides) measured[side] = { events: 0, append: { seconds: 0, cpuSeconds: 0 } };
      const sliceCount = warmUp ? 1 : slices;
      for (let s = 0; s < sliceCount; s++) {
        // Each slice starts with another side, so none always runs first after the pause between.
        const sliceOrder = [...order.slice(s % order.length), ...order.slice(0, s % order.length)];
        for (const side of sliceOrder) {
          const { store, chains } = prepared.get(side)!;
          const slice = chains.slice(
            Math.floor((chains.length * s) / sliceCount),
            Math.floor((chains.length * (s + 1)) / sliceCount),
          );
          collectGarbage();
          const [events, append] = await timed(() => appendChains(store, slice, 256));
          const total = measured[side]!;
          total.events += events;
          total.append.seconds += append.seconds;
          total.append.cpuSeconds += append.cpuSeconds;
          if (!warmUp) sliceTimings[side].push(append);
        }
      }
      for (const side of order) log(`  ${label}, ${side}: append ${figures(measured[side]!.append)}`);
      for (const side of order) {
        if (side === 'sealedKnownKeys') continue;
        const { store, id } = prepared.get(side)!;
        // A fresh vault: the rebuild loads every key it needs, as a new process would.
        const reader =
          side === 'sealed'
            ? await openStore(nc, id, true, await openDataKeyVault(db, keysSchema, masterKey))
            : store;
        collectGarbage();
        const [rebuilt, rebuild] = await timed(() =>
          rebuildProjections({
            store: reader,
            db,
            schema: id,
            projections: readModelProjections(),
            migrations: readModelMigrations,
          }),
        );
        if (rebuilt.events !== measured[side]!.events)
          throw new Error(`rebuild applied ${rebuilt.events} of ${measured[side]!.events} events`);
        measured[side]!.rebuild = rebuild;
        log(`  ${side}: rebuild ${figures(rebuild)}`);
        await sql`DROP SCHEMA IF EXISTS ${sql.id(id)} CASCADE`.execute(db);
      }
      for (const { store } of prepared.values()) {
        await store.jsm.streams.delete(store.stream).catch(() => undefined);
      }
      if (!warmUp) for (const side of sides) results[side].push(measured[side]!);
    }
  } finally {
    await sql`DROP SCHEMA IF EXISTS ${sql.id(keysSchema)} CASCADE`.execute(db);
  }
  const wall = overheads(results, sliceTimings, 'seconds');
  const cpu = overheads(results, sliceTimings, 'cpuSeconds');
  return {
    users: options.users,
    rounds: options.rounds,
    slices,
    clear: summarize(results.clear),
    sealedEvents,
    sealed: summarize(results.sealed),
    sealedKnownKeys: summarize(results.sealedKnownKeys),
    writeOverheadPercent: wall.write.median,
    writeOverheadKnownKeysPercent: wall.writeKnownKeys.median,
    rebuildOverheadPercent: wall.rebuild.median,
    cpuOverheadPercent: medians(cpu),
    wallOverheadSpreadPercent: wall,
    cpuOverheadSpreadPercent: cpu,
  };
}
