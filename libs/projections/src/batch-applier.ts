import { Kysely, sql } from 'kysely';
import { RecordedEvent } from '@shop/contracts';
import { BookkeepingDatabase } from '@shop/db';
import { AnyKysely, AnyProjection } from './projection';
import { isTransientError } from './transient-error';
import { WriteMode } from './write-rows';

/** One stream message for a projection: its decoded events, or why they could not be decoded. */
export interface BatchItem {
  sequence: number;
  subject: string;
  events: readonly RecordedEvent[] | null;
  decodeError?: string;
}

export interface ParkedEvent {
  subject: string;
  sequence: number;
  error: string;
}

export interface BatchOutcome {
  checkpoint: number;
  applied: RecordedEvent[];
  parked: ParkedEvent[];
}

/** The checkpoint row is not where this runner left it: another runner, or an operator, moved it. */
export class CheckpointMovedError extends Error {
  constructor(
    readonly projection: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`checkpoint of ${projection} is at ${actual}, expected ${expected}`);
    this.name = 'CheckpointMovedError';
  }
}

interface LockedState {
  parked: Set<string>;
}

/**
 * Applies a batch of stream messages and the checkpoint in one transaction, so each event
 * takes effect exactly once across crashes and redeliveries. A failing batch is retried one
 * message at a time behind savepoints; a message that keeps failing parks its subject: it
 * and the later messages of that subject wait in parked_events while the rest flows.
 */
export class BatchApplier {
  constructor(
    db: AnyKysely,
    private readonly schema: string,
    private readonly projection: AnyProjection,
    private readonly maxAttempts: number,
    /**
     * Whether a batch's commit waits for the WAL flush. A read model can be rebuilt from the
     * stream, and the checkpoint commits with its batch: a Postgres crash loses at most the last
     * batches and their checkpoint together, as if they had rolled back, and the runner applies
     * them again from the stream. A schema nobody reads yet (a rebuild before its swap) never
     * needs it; the swap's own synchronous commit flushes everything written before it.
     */
    private readonly durableCommits = false,
  ) {
    this.db = db;
  }

  private readonly db: Kysely<BookkeepingDatabase>;

  /** Ensures the checkpoint row exists and returns its position. */
  async checkpoint(): Promise<number> {
    await this.db
      .withSchema(this.schema)
      .insertInto('projection_checkpoints')
      .values({ projection: this.projection.name, position: 0 })
      .onConflict((oc) => oc.column('projection').doNothing())
      .execute();
    return this.storedCheckpoint(this.db);
  }

  /** `mode`: how the projection writes its rows (a message retried on its own is a small batch). */
  async apply(
    items: readonly BatchItem[],
    expectedCheckpoint: number,
    mode: WriteMode = 'batch',
  ): Promise<BatchOutcome> {
    if (items.length === 0) return { checkpoint: expectedCheckpoint, applied: [], parked: [] };
    const checkpoint = items.at(-1)!.sequence;
    try {
      return await this.inTransaction(expectedCheckpoint, checkpoint, async (trx, state) => {
        const applied: RecordedEvent[] = [];
        const parked: ParkedEvent[] = [];
        for (const item of items) {
          if (state.parked.has(item.subject)) await this.queueBehindParked(trx, item);
          else if (item.events === null) {
            parked.push(await this.park(trx, item, item.decodeError ?? 'undecodable message', 1, state));
          } else applied.push(...item.events);
        }
        await this.projection.apply(trx.withSchema(this.schema), applied, mode);
        return { checkpoint, applied, parked };
      });
    } catch (error) {
      if (isTransientError(error) || error instanceof CheckpointMovedError) throw error;
      return this.applyIsolated(items, expectedCheckpoint);
    }
  }

  /**
   * Moves the checkpoint over messages that held nothing for the projection: one statement, so
   * one round trip and no transaction of its own.
   */
  async advance(expectedCheckpoint: number, position: number): Promise<void> {
    await this.lockAndMove(this.db, expectedCheckpoint, position);
  }

  private async applyIsolated(
    items: readonly BatchItem[],
    expectedCheckpoint: number,
  ): Promise<BatchOutcome> {
    const checkpoint = items.at(-1)!.sequence;
    return this.inTransaction(expectedCheckpoint, checkpoint, async (trx, state) => {
      const applied: RecordedEvent[] = [];
      const parked: ParkedEvent[] = [];
      for (const item of items) {
        if (state.parked.has(item.subject)) {
          await this.queueBehindParked(trx, item);
          continue;
        }
        if (item.events === null) {
          parked.push(await this.park(trx, item, item.decodeError ?? 'undecodable message', 1, state));
          continue;
        }
        let lastError: unknown = null;
        for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
          await sql`SAVEPOINT one_message`.execute(trx);
          try {
            await this.projection.apply(trx.withSchema(this.schema), item.events);
            await sql`RELEASE SAVEPOINT one_message`.execute(trx);
            lastError = null;
            break;
          } catch (error) {
            await sql`ROLLBACK TO SAVEPOINT one_message`.execute(trx);
            if (isTransientError(error)) throw error;
            lastError = error;
          }
        }
        if (lastError === null) applied.push(...item.events);
        else parked.push(await this.park(trx, item, describe(lastError), this.maxAttempts, state));
      }
      return { checkpoint, applied, parked };
    });
  }

  /**
   * Runs `work` in a transaction that first moves the checkpoint from `expected` to `position`.
   * BEGIN, the durability setting and the move travel as one query of several statements (the
   * simple protocol, so its values are literals: two integers and the projection's name), which
   * saves a round trip per batch; see createDatabase for how its last result comes back.
   */
  private async inTransaction<T>(
    expected: number,
    position: number,
    work: (trx: Kysely<BookkeepingDatabase>, state: LockedState) => Promise<T>,
  ): Promise<T> {
    return this.db.connection().execute(async (connection) => {
      const begin = this.durableCommits ? sql`BEGIN;` : sql`BEGIN; SET LOCAL synchronous_commit TO off;`;
      try {
        const state = await this.lockAndMove(connection, expected, position, begin);
        const result = await work(connection, state);
        await sql`COMMIT`.execute(connection);
        return result;
      } catch (error) {
        await sql`ROLLBACK`.execute(connection).catch(() => undefined);
        throw error;
      }
    });
  }

  /**
   * One round trip (with `prefix`, the statements that open its transaction): moves the
   * checkpoint row from `expected` to `position` (locking it, so a batch in the same transaction
   * commits with it or not at all) and learns which subjects are parked. The row is updated
   * first, before any table of the projection is read: see withProjectionsPaused.
   */
  private async lockAndMove(
    db: Kysely<BookkeepingDatabase>,
    expected: number,
    position: number,
    prefix = sql``,
  ): Promise<LockedState> {
    // Literals, not parameters (see inTransaction): only ever integers.
    if (!Number.isSafeInteger(expected) || !Number.isSafeInteger(position)) {
      throw new Error(`checkpoint positions must be integers: ${expected}, ${position}`);
    }
    const schema = sql.id(this.schema);
    const result = await sql<{ parked: string[] | null }>`${prefix}
      UPDATE ${schema}.projection_checkpoints c
         SET position = ${sql.lit(position)}, updated_at = now()
       WHERE c.projection = ${sql.lit(this.projection.name)} AND c.position = ${sql.lit(expected)}
      RETURNING (SELECT array_agg(p.subject) FROM ${schema}.parked_subjects p WHERE p.projection = c.projection) AS parked`.execute(
      db,
    );
    const row = result.rows[0];
    if (!row) throw new CheckpointMovedError(this.projection.name, expected, await this.storedCheckpoint(db));
    return { parked: new Set(row.parked ?? []) };
  }

  private async storedCheckpoint(db: Kysely<BookkeepingDatabase>): Promise<number> {
    const row = await db
      .withSchema(this.schema)
      .selectFrom('projection_checkpoints')
      .select('position')
      .where('projection', '=', this.projection.name)
      .executeTakeFirst();
    return Number(row?.position ?? -1);
  }

  private async park(
    trx: Kysely<BookkeepingDatabase>,
    item: BatchItem,
    error: string,
    attempts: number,
    state: LockedState,
  ): Promise<ParkedEvent> {
    await trx
      .withSchema(this.schema)
      .insertInto('parked_subjects')
      .values({
        projection: this.projection.name,
        subject: item.subject,
        sequence: item.sequence,
        error,
        attempts,
      })
      .execute();
    await this.queueBehindParked(trx, item);
    state.parked.add(item.subject);
    return { subject: item.subject, sequence: item.sequence, error };
  }

  private async queueBehindParked(trx: Kysely<BookkeepingDatabase>, item: BatchItem): Promise<void> {
    await trx
      .withSchema(this.schema)
      .insertInto('parked_events')
      .values({ projection: this.projection.name, subject: item.subject, sequence: item.sequence })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

function describe(error: unknown): string {
  return (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 2000);
}
