import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely, sql } from 'kysely';
import { AckPolicy, NatsConnection, nanos } from 'nats';
import { MetricSample, sampleValue } from '@shop/metrics';
import { aggregateWildcard, eventCatalogue } from '@shop/contracts';
import { EventStore } from '@shop/eventstore';
import { wholeNameOf } from '@shop/projections';
import { readModelProjections } from '@shop/read-models';
import { ServiceProcess, startServiceProcess } from '@shop/testing';
import { openDataKeyVault } from '@shop/wallets';
import { BenchNames, freePort } from './bench-stack';
import { appendHistory, eventsPerUser } from './event-history';
import { scrape } from './scrape';

export interface ProjectorThroughputOptions {
  nc: NatsConnection;
  db: Kysely<unknown>;
  names: BenchNames;
  base: Record<string, string | undefined>;
  settings: Record<string, string>;
  compiled: boolean;
  minEvents: number;
  partitions: number;
  /** Checkpoint rows of a caught-up schema: one per partition of a partitioned projection, one per other. */
  checkpointRows: number;
  log(line: string): void;
}

export interface ProjectorRun {
  processes: number;
  /** From the first checkpoint that moved until every checkpoint had reached the stream's end. */
  seconds: number;
  eventsPerSecond: number;
  /** Each process's CPU over the whole run, start-up included. */
  cpuSeconds: number[];
  /** Each process's resident memory once caught up: the catch-up rounds' decoded windows live there. */
  rssMiB: number[];
  /**
   * Per partitioned projection: the messages its partitions' runners were given together,
   * divided by the messages of the aggregates it reads in the stream. 1 when each partition is delivered
   * its own messages only; N when each is delivered every message and skips the others'.
   */
  deliveriesPerEvent: Record<string, number>;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Progress of a schema's projections: how many checkpoint rows exist, the least and the sum of their positions. */
async function progress(db: Kysely<unknown>, schema: string) {
  const result = await sql<{ rows: string; least: string | null; total: string | null }>`
    SELECT count(*) AS rows, min(position) AS least, sum(position) AS total
      FROM ${sql.id(schema)}.projection_checkpoints`
    .execute(db)
    .catch(() => ({ rows: [] }));
  const row = result.rows[0];
  return { rows: Number(row?.rows ?? 0), least: Number(row?.least ?? 0), total: Number(row?.total ?? 0) };
}

/** How many messages of the stream match `filter`: the pending count of a consumer made to ask. */
async function messagesMatching(nc: NatsConnection, stream: string, filter: string): Promise<number> {
  const jsm = await nc.jetstreamManager();
  const consumer = await jsm.consumers.add(stream, {
    ack_policy: AckPolicy.None,
    filter_subject: filter,
    inactive_threshold: nanos(5000),
  });
  await jsm.consumers.delete(stream, consumer.name);
  return consumer.num_pending;
}

/** Partitioned projections' deliveries per event, from what each process's runners were given. */
async function deliveriesPerEvent(
  nc: NatsConnection,
  store: EventStore,
  samples: readonly MetricSample[],
): Promise<Record<string, number>> {
  const given = new Map<string, number>();
  for (const s of samples) {
    if (s.name !== 'projection_batch_messages_sum' || !/-p[0-9]+of[0-9]+$/.test(s.labels.projection ?? ''))
      continue;
    const whole = wholeNameOf(s.labels.projection!);
    given.set(whole, (given.get(whole) ?? 0) + s.value);
  }
  const result: Record<string, number> = {};
  for (const projection of readModelProjections()) {
    const delivered = given.get(projection.name);
    if (delivered === undefined) continue;
    let own = 0;
    for (const aggregate of projection.aggregates)
      own += await messagesMatching(nc, store.stream, aggregateWildcard(store.subjectPrefix, aggregate));
    result[projection.name] = own > 0 ? round(delivered / own) : 0;
  }
  return result;
}

/**
 * Projector throughput on one partitioned stream, with one process and then with two: appends
 * user histories (every projection has work), then for each count starts that many projector
 * processes on a fresh schema and times them from the first checkpoint that moves until every
 * partition of every projection has applied the whole stream. On a two-core machine the second
 * process competes with Postgres for the same cores: the figure says what a second process buys
 * here, not on separate machines. Also measures what the stream and the read models hold per
 * event and per row, for docs/capacity.md.
 */
export async function measureProjectorThroughput(options: ProjectorThroughputOptions) {
  const { nc, db, names, log } = options;
  const stream = `${names.stream}_PT`;
  const subjectPrefix = `${names.subjectPrefix}pt`;
  const secretsSchema = `${names.schema}_pt_keys`;
  const dataEncryptionKey = randomBytes(32);
  const store = await EventStore.create(nc, {
    stream,
    subjectPrefix,
    catalogue: eventCatalogue,
    dataKeys: await openDataKeyVault(db, secretsSchema, dataEncryptionKey),
  });
  await store.provision();
  const users = Math.ceil(options.minEvents / eventsPerUser);
  log(`projector throughput: appending ${users * eventsPerUser} events (${users} user histories)`);
  const events = await appendHistory(store, users, 512);
  const info = await (await nc.jetstreamManager()).streams.info(stream);
  const last = info.state.last_seq;

  const runs: ProjectorRun[] = [];
  for (const processes of [1, 2]) {
    const schema = `${names.schema}_pt${processes}`;
    log(`projector throughput: ${processes} process(es), ${options.partitions} partitions`);
    const started: { process: ServiceProcess; metricsUrl: string }[] = [];
    try {
      for (let i = 0; i < processes; i++) {
        const port = await freePort();
        const env: Record<string, string> = {
          ...(Object.fromEntries(Object.entries(options.base).filter(([, v]) => v !== undefined)) as Record<
            string,
            string
          >),
          ...options.settings,
          EVENT_STREAM: stream,
          EVENT_SUBJECT_PREFIX: subjectPrefix,
          READ_MODEL_SCHEMA: schema,
          SECRETS_SCHEMA: secretsSchema,
          DATA_ENCRYPTION_KEY: dataEncryptionKey.toString('hex'),
          REDIS_KEY_PREFIX: `${names.redisKeyPrefix}pt${processes}:`,
          METRICS_PORT: String(port),
          STREAM_PARTITIONS: String(options.partitions),
        };
        const entry = options.compiled ? 'services/projector/dist/main.js' : 'services/projector/src/main.ts';
        started.push({
          process: startServiceProcess(entry, env, { compiled: options.compiled }),
          metricsUrl: `http://127.0.0.1:${port}`,
        });
      }
      let firstMoved = 0;
      for (;;) {
        for (const { process } of started) {
          const code = process.child.exitCode;
          if (code !== null)
            throw new Error(`a projector exited (${code}):\n${process.output().slice(-2000)}`);
        }
        const now = await progress(db, schema);
        if (!firstMoved && now.total > 0) firstMoved = performance.now();
        if (now.rows >= options.checkpointRows && now.least >= last) break;
        await sleep(50);
      }
      const seconds = (performance.now() - firstMoved) / 1000;
      const samples = await Promise.all(started.map(({ metricsUrl }) => scrape(metricsUrl)));
      const cpuSeconds = samples.map((s) => round(sampleValue(s, 'process_cpu_seconds_total')));
      const rssMiB = samples.map((s) =>
        Math.round(sampleValue(s, 'process_resident_memory_bytes') / 2 ** 20),
      );
      const deliveries = await deliveriesPerEvent(nc, store, samples.flat());
      runs.push({
        processes,
        seconds: round(seconds),
        eventsPerSecond: Math.round(events / seconds),
        cpuSeconds,
        rssMiB,
        deliveriesPerEvent: deliveries,
      });
      log(
        `projector throughput: ${processes} process(es): ${Math.round(events / seconds)} events/s; deliveries per event ${JSON.stringify(deliveries)}`,
      );
    } finally {
      for (const { process } of started) await process.stop();
    }
  }

  const schema = `${names.schema}_pt1`;
  const tables = await sql<{ table: string; bytes: string; rows: string }>`
    SELECT c.relname AS table, pg_total_relation_size(c.oid) AS bytes,
           (xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM %I.%I', n.nspname, c.relname), false, true, '')))[1]::text AS rows
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = ${schema} AND c.relkind = 'r'
       AND c.relname NOT LIKE 'kysely%' AND c.relname NOT IN ('projection_checkpoints', 'parked_subjects', 'parked_events')
     ORDER BY pg_total_relation_size(c.oid) DESC`.execute(db);
  return {
    events,
    partitions: options.partitions,
    runs,
    speedup: round(runs[0]!.seconds / runs[1]!.seconds),
    stream: {
      messages: info.state.messages,
      bytes: info.state.bytes,
      bytesPerEvent: Math.round(info.state.bytes / info.state.messages),
      subjects: info.state.num_subjects,
      consumers: (await (await nc.jetstreamManager()).streams.info(stream)).state.consumer_count,
    },
    readModel: tables.rows.map((t) => ({
      table: t.table,
      rows: Number(t.rows),
      bytes: Number(t.bytes),
      bytesPerRow: Number(t.rows) > 0 ? Math.round(Number(t.bytes) / Number(t.rows)) : null,
    })),
  };
}
