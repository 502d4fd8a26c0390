import type { Kysely } from 'kysely';
import type { EventStore } from '@shop/eventstore';
import { sampled } from './sampled';
import { ServiceMetrics } from './service-metrics';

export interface ProjectionStatus {
  projection: string;
  checkpoint: number;
  /** Stream messages not yet applied. */
  lagEvents: number;
  /** Age of the oldest message not yet applied; 0 when caught up. */
  lagSeconds: number;
  parkedSubjects: number;
}

/**
 * Projection progress read from where it is true: the checkpoint rows in Postgres and the
 * stream's last sequence in JetStream. Lag in seconds is the stream timestamp of the first
 * message a projection has not applied, so it measures how stale the read model is, and it
 * stays 0 on an idle stream instead of growing with the time since the last event.
 */
export class ProjectionStatusSampler {
  /** Several gauges read one sample: a scrape queries the stream and the database once. */
  readonly sample = sampled(() => this.read(Date.now()));

  constructor(
    private readonly store: EventStore,
    private readonly db: Kysely<unknown>,
    private readonly schema: string,
    private readonly projections: readonly string[],
  ) {}

  get stream(): string {
    return this.store.stream;
  }

  private async read(now: number): Promise<{ last: number; rows: ProjectionStatus[] }> {
    // An untyped view: the bookkeeping tables exist in every projection schema.
    const db = this.db.withSchema(this.schema) as unknown as Kysely<{
      projection_checkpoints: { projection: string; position: number };
      parked_subjects: { projection: string; subject: string };
    }>;
    const [last, checkpoints, parked] = await Promise.all([
      this.store.lastStreamSequence(),
      db
        .selectFrom('projection_checkpoints')
        .select(['projection', 'position'])
        .where('projection', 'in', [...this.projections])
        .execute(),
      db
        .selectFrom('parked_subjects')
        .select(({ fn }) => ['projection', fn.countAll<number>().as('count')])
        .where('projection', 'in', [...this.projections])
        .groupBy('projection')
        .execute(),
    ]);
    const positions = new Map(checkpoints.map((c) => [c.projection, Number(c.position)]));
    const parkedBy = new Map(parked.map((p) => [p.projection, Number(p.count)]));
    const rows = await Promise.all(
      this.projections.map(async (projection) => {
        const checkpoint = positions.get(projection) ?? 0;
        const lagEvents = Math.max(0, last - checkpoint);
        const lagSeconds = lagEvents > 0 ? await this.ageOf(checkpoint + 1, now) : 0;
        return {
          projection,
          checkpoint,
          lagEvents,
          lagSeconds,
          parkedSubjects: parkedBy.get(projection) ?? 0,
        };
      }),
    );
    return { last, rows };
  }

  private async ageOf(sequence: number, now: number): Promise<number> {
    const message = await this.store.jsm.streams
      .getMessage(this.store.stream, { seq: sequence })
      .catch(() => null);
    return message ? Math.max(0, (now - message.time.getTime()) / 1000) : 0;
  }
}

/** projection_checkpoint, projection_lag_events, projection_lag_seconds, projection_parked_subjects, stream_last_sequence. */
export function registerProjectionStatus(metrics: ServiceMetrics, sampler: ProjectionStatusSampler): void {
  const byProjection =
    (pick: (s: ProjectionStatus) => number) =>
    async (gauge: { set(labels: { projection: string }, value: number): void }) => {
      for (const row of (await sampler.sample()).rows) gauge.set({ projection: row.projection }, pick(row));
    };
  metrics.gauge(
    'projection_checkpoint',
    'Last stream sequence a projection has applied',
    ['projection'],
    byProjection((s) => s.checkpoint),
  );
  metrics.gauge(
    'projection_lag_events',
    'Stream messages a projection has not applied yet (stream last sequence minus checkpoint)',
    ['projection'],
    byProjection((s) => s.lagEvents),
  );
  metrics.gauge(
    'projection_lag_seconds',
    'Age of the oldest stream message a projection has not applied yet; 0 when caught up',
    ['projection'],
    byProjection((s) => s.lagSeconds),
  );
  metrics.gauge(
    'projection_parked_subjects',
    'Subjects parked after repeated failures, waiting for an operator (retry or skip)',
    ['projection'],
    byProjection((s) => s.parkedSubjects),
  );
  // Labelled, so a failed sample drops the series instead of reporting 0.
  metrics.gauge('stream_last_sequence', 'Last sequence of the event stream', ['stream'], async (gauge) => {
    gauge.set({ stream: sampler.stream }, (await sampler.sample()).last);
  });
}
