import { setTimeout as sleep } from 'node:timers/promises';
import type { SuiClient } from '@mysten/sui/client';
import { Kysely } from 'kysely';
import pg from 'pg';
import { EventCursor, queryContractEvents } from '@shop/chain';
import { defaultRetryPolicy } from '@shop/retry';
import { systemActor } from '@shop/contracts';
import { EventStore, WrongExpectedSequenceError } from '@shop/eventstore';
import { chainEventId, chainEventRecord } from './chain-event-record';
import { idlePauseMs } from './idle-pause';
import { IndexerDatabase } from './indexer-migrations';

export interface ChainIndexerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ChainIndexerOptions {
  client: SuiClient;
  packageId: string;
  store: EventStore;
  /** The indexer's schema (cursor table). */
  db: Kysely<IndexerDatabase>;
  /** For the advisory lock that lets exactly one indexer advance the cursor. */
  databaseUrl: string;
  pollIntervalMs: number;
  logger: ChainIndexerLogger;
  pageSize?: number;
}

const cursorName = 'cart-contract';

/**
 * Polls the cart contract's events and appends each on its own subject
 * `chain.<txDigest>-<eventSeq>` at expected sequence 0, then moves the durable cursor. Several
 * indexers may run (one per gateway); a session advisory lock lets exactly one advance the
 * cursor, the others wait as standbys. A crash between append and cursor move re-reads a page,
 * which the sequence-0 appends turn into no-ops.
 */
export class ChainIndexer {
  private stopping = false;
  private loop: Promise<void> | null = null;
  private lock: pg.Client | null = null;
  private wake: (() => void) | null = null;
  /**
   * The cursor as this indexer last read or saved it while holding the lock (nobody else moves it
   * then); undefined until read. Saves an idle poll its database round trip.
   */
  private cursor: EventCursor | null | undefined = undefined;

  constructor(private readonly options: ChainIndexerOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    await this.lock?.end().catch(() => undefined);
    this.lock = null;
  }

  /** Runs one page now (tests); returns the number of events seen. */
  async pollOnce(): Promise<number> {
    const cursor = this.lock && this.cursor !== undefined ? this.cursor : await this.readCursor();
    const page = await queryContractEvents(
      this.options.client,
      this.options.packageId,
      cursor,
      this.options.pageSize ?? 50,
      defaultRetryPolicy,
    );
    for (const event of page.events) {
      try {
        await this.options.store.append(
          'chain',
          chainEventId(event),
          [{ type: 'ChainEventObserved', data: chainEventRecord(event) }],
          {
            commandId: `chain:${chainEventId(event)}`,
            correlationId: `chain:${event.txDigest}`,
            actor: { ...systemActor, kind: 'chain' },
            expectedSequence: 0,
          },
        );
      } catch (error) {
        if (!(error instanceof WrongExpectedSequenceError)) throw error;
      }
    }
    if (page.nextCursor && page.events.length > 0) await this.saveCursor(page.nextCursor);
    this.cursor = page.nextCursor && page.events.length > 0 ? page.nextCursor : cursor;
    return page.events.length;
  }

  private async run(): Promise<void> {
    const { logger, pollIntervalMs } = this.options;
    let emptyPolls = 0;
    while (!this.stopping) {
      try {
        if (!(await this.holdLock())) {
          await this.pause(Math.max(pollIntervalMs, 1000));
          continue;
        }
        const seen = await this.pollOnce();
        emptyPolls = seen === 0 ? emptyPolls + 1 : 0;
        if (seen === 0) await this.pause(idlePauseMs(pollIntervalMs, emptyPolls));
      } catch (error) {
        logger.warn({ err: error }, 'chain indexer poll failed; retrying');
        await this.pause(Math.min(pollIntervalMs * 4, 5000));
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return Promise.race([sleep(ms), new Promise<void>((resolve) => (this.wake = resolve))]);
  }

  private async holdLock(): Promise<boolean> {
    if (this.lock) return true;
    const client = new pg.Client({
      connectionString: this.options.databaseUrl,
      application_name: 'chain-indexer-lock',
    });
    client.on('error', () => undefined);
    await client.connect();
    const { rows } = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_lock(hashtext($1)) AS locked',
      [`chain-indexer:${this.options.store.stream}:${this.options.packageId}`],
    );
    if (!rows[0]?.locked) {
      await client.end();
      return false;
    }
    client.on('end', () => {
      if (this.lock === client) this.lock = null;
    });
    this.lock = client;
    // Another indexer may have moved the cursor while this one did not hold the lock.
    this.cursor = undefined;
    this.options.logger.info({ packageId: this.options.packageId }, 'chain indexer is the active one');
    return true;
  }

  private async readCursor(): Promise<EventCursor | null> {
    const row = await this.options.db
      .selectFrom('indexer_cursors')
      .select(['tx_digest', 'event_seq'])
      .where('name', '=', cursorName)
      .executeTakeFirst();
    return row ? { txDigest: row.tx_digest, eventSeq: row.event_seq } : null;
  }

  private async saveCursor(cursor: EventCursor): Promise<void> {
    await this.options.db
      .insertInto('indexer_cursors')
      .values({
        name: cursorName,
        tx_digest: cursor.txDigest,
        event_seq: cursor.eventSeq,
        updated_at: new Date(),
      })
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({ tx_digest: cursor.txDigest, event_seq: cursor.eventSeq, updated_at: new Date() }),
      )
      .execute();
  }
}
