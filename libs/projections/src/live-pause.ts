import { Kysely, sql, Transaction } from 'kysely';
import { BookkeepingDatabase } from '@shop/db';
import { AnyKysely } from './projection';

export interface PausedProjections {
  /** The transaction that holds the pause: work done in it becomes visible as the pause ends. */
  trx: Transaction<BookkeepingDatabase>;
  /** Checkpoint per projection at the pause; a projection that never ran is absent (position 0). */
  positions: ReadonlyMap<string, number>;
}

/**
 * Runs `work` while no projection can commit a batch into `schema`, and commits what it did
 * in the same transaction that ends the pause.
 *
 * Every live batch starts by moving its checkpoint row (an `UPDATE`, see BatchApplier), which
 * needs a ROW EXCLUSIVE lock on projection_checkpoints; an EXCLUSIVE lock on the table refuses
 * exactly that (and row locks) while plain reads go on, so the
 * gateway's position tracker and lag metrics keep working. A batch that waits here has taken
 * no snapshot and resolved no table name yet: once the pause commits, it looks the tables up
 * again and reads the checkpoint afresh, so whatever `work` swapped in is, to that batch, as
 * if it had always been there. The advisory lock of the runner cannot serve instead: a runner
 * holds it for as long as it runs, not per batch.
 *
 * `db` must have a second connection free: `work` may write other schemas meanwhile.
 */
export async function withProjectionsPaused<T>(
  db: AnyKysely,
  schema: string,
  work: (paused: PausedProjections) => Promise<T>,
): Promise<T> {
  const bookkeeping: Kysely<BookkeepingDatabase> = db;
  return bookkeeping.transaction().execute(async (trx) => {
    await sql`LOCK TABLE ${sql.table(`${schema}.projection_checkpoints`)} IN EXCLUSIVE MODE`.execute(trx);
    const rows = await trx
      .withSchema(schema)
      .selectFrom('projection_checkpoints')
      .select(['projection', 'position'])
      .execute();
    return work({ trx, positions: new Map(rows.map((r) => [r.projection, Number(r.position)])) });
  });
}
