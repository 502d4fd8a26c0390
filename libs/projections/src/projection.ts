import { Kysely } from 'kysely';
import { AggregateName, RecordedEvent } from '@shop/contracts';
import { BookkeepingDatabase } from '@shop/db';
import { BulkFold } from './bulk-fold';
import { WriteMode } from './write-rows';

/**
 * A read model built from the stream. `apply` runs inside the batch's transaction. `DB` is
 * the schema it writes into.
 */
export interface Projection<DB extends BookkeepingDatabase> {
  readonly name: string;
  /**
   * Aggregates it reads, all of them: a command waits only for the projections that read its
   * aggregate, and a runner passes over batches holding none of them without a transaction.
   */
  readonly aggregates: readonly AggregateName[];
  /** Tables it owns, compared row for row between a live and a rebuilt read model. */
  readonly tables: readonly (keyof DB & string)[];
  /**
   * Applies events in stream order. Must cost a fixed number of round trips per batch
   * (load the touched rows once, write them back in one statement), never one per event.
   * `mode` says how to write the rows (see writeRows): `bulk` for a catch-up batch of
   * thousands of messages, `batch` otherwise; the read model must end the same either way.
   */
  apply(db: Kysely<DB>, events: readonly RecordedEvent[], mode?: WriteMode): Promise<void>;
  /**
   * A fresh fold of the whole stream in memory, for a rebuild into an empty schema (see
   * rebuildProjections). Without it a rebuild applies batches through `apply`.
   */
  bulk?(): BulkFold;
  /** Best-effort work after the batch committed (cache invalidation); failures are logged only. */
  afterCommit?(events: readonly RecordedEvent[]): Promise<void>;
  /**
   * Whether it may be split by aggregate id (see projectionUnits): true only when no row (and no
   * statement) combines events of different aggregate ids, so each partition applies its own
   * aggregates in order and the partitions never race on a row. Absent: one partition always.
   */
  readonly partitioned?: boolean;
  /** Set on one partition of a projection (see partitionUnit): which one, of how many. */
  readonly partition?: ProjectionPartition;
}

export interface ProjectionPartition {
  /** The whole projection's name, which its checkpoint row had before it was partitioned. */
  readonly of: string;
  readonly index: number;
  readonly count: number;
}

/** The runtime handles any projection alike: it only touches the bookkeeping tables itself. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyProjection = Projection<any>;

/** Any schema's database handle: projections of every service share one runtime. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyKysely = Kysely<any>;
