import { Kysely, sql } from 'kysely';
import { RecordedEvent } from '@shop/contracts';
import { BookkeepingDatabase } from '@shop/db';
import { AnyKysely, AnyProjection } from './projection';
import { isTransientError } from './transient-error';

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
     * False for a schema nobody reads yet (a rebuild before its swap): its commits need not wait
     * for the WAL flush, because a crash only means rebuilding again, and the swap's own
     * synchronous commit flushes everything written before it.
     */
    private readonly durableCommits = true,
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

  async apply(items: readonly BatchItem[], expectedCheckpoint: number): Promise<BatchOutcome> {
    if (items.length === 0) return { checkpoint: expectedCheckpoint, applied: [], parked: [] };
    const checkpoint = items.at(-1)!.sequence;
    try {
      return await this.db.transaction().execute(async (trx) => {
        await this.relaxDurability(trx);
        const state = await this.lockAndMove(trx, expectedCheckpoint, checkpoint);
        const applied: RecordedEvent[] = [];
        const parked: ParkedEvent[] = [];
        for (const item of items) {
          if (state.parked.has(item.subject)) await this.queueBehindParked(trx, item);
          else if (item.events === null) {
            parked.push(await this.park(trx, item, item.decodeError ?? 'undecodable message', 1, state));
          } else applied.push(...item.events);
        }
        await this.projection.apply(trx.withSchema(this.schema), applied);
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
    return this.db.transaction().execute(async (trx) => {
      await this.relaxDurability(trx);
      const checkpoint = items.at(-1)!.sequence;
      const state = await this.lockAndMove(trx, expectedCheckpoint, checkpoint);
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

  private async relaxDurability(trx: Kysely<BookkeepingDatabase>): Promise<void> {
    if (!this.durableCommits) await sql`SET LOCAL synchronous_commit TO off`.execute(trx);
  }

  /**
   * One round trip: moves the checkpoint row from `expected` to `position` (locking it, so a batch
   * in the same transaction commits with it or not at all) and learns which subjects are parked.
   * The row is updated first, before any table of the projection is read: see withProjectionsPaused.
   */
  private async lockAndMove(
    db: Kysely<BookkeepingDatabase>,
    expected: number,
    position: number,
  ): Promise<LockedState> {
    const schema = sql.id(this.schema);
    const result = await sql<{ parked: string[] | null }>`
      UPDATE ${schema}.projection_checkpoints c
         SET position = ${position}, updated_at = now()
       WHERE c.projection = ${this.projection.name} AND c.position = ${expected}
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
