import { Kysely, sql } from 'kysely';
import { ReactionsDatabase } from '@shop/db';
import { ReactionPartition } from './reaction-partition';

/**
 * A reaction partition's own record of how far it has handled its consumer's messages: every
 * message of the consumer up to `sequence` was handled (or parked). A runner binding to its
 * consumer checks the consumer's acknowledgements against it, so messages acknowledged by
 * anything but the runner are noticed and handled again instead of silently skipped.
 */
export interface ReactionPositions {
  /** The partition's record, or null when it has none yet. */
  read(reaction: string, partition: ReactionPartition): Promise<number | null>;
  /**
   * The lowest record of each partition count of the reaction whose every partition has one, by
   * count: a new split starts after it (a count with a partition unrecorded says nothing).
   */
  byCount(reaction: string): Promise<Map<number, number>>;
  /** Records `sequence`; a record never moves back (an old holder's late write is ignored). */
  record(reaction: string, partition: ReactionPartition, sequence: number): Promise<void>;
}

const keyOf = ({ index, count }: ReactionPartition) => `${index}of${count}`;

/** The records in Postgres, beside the parked events (REACTIONS_SCHEMA), which no rebuild drops. */
export class PostgresReactionPositions implements ReactionPositions {
  constructor(private readonly db: Kysely<ReactionsDatabase>) {}

  async read(reaction: string, partition: ReactionPartition): Promise<number | null> {
    const row = await this.db
      .selectFrom('reaction_positions')
      .select('sequence')
      .where('reaction', '=', reaction)
      .where('partition', '=', keyOf(partition))
      .executeTakeFirst();
    return row ? Number(row.sequence) : null;
  }

  async byCount(reaction: string): Promise<Map<number, number>> {
    const rows = await this.db
      .selectFrom('reaction_positions')
      .select(['partition', 'sequence'])
      .where('reaction', '=', reaction)
      .execute();
    const byCount = new Map<number, number[]>();
    for (const row of rows) {
      const count = Number(row.partition.slice(row.partition.indexOf('of') + 2));
      byCount.set(count, [...(byCount.get(count) ?? []), Number(row.sequence)]);
    }
    return new Map(
      [...byCount]
        .filter(([count, records]) => records.length === count)
        .map(([c, r]) => [c, Math.min(...r)]),
    );
  }

  async record(reaction: string, partition: ReactionPartition, sequence: number): Promise<void> {
    await this.db
      .insertInto('reaction_positions')
      .values({ reaction, partition: keyOf(partition), sequence })
      .onConflict((oc) =>
        oc.columns(['reaction', 'partition']).doUpdateSet({
          sequence: sql`greatest(reaction_positions.sequence, excluded.sequence)`,
          recorded_at: sql`now()`,
        }),
      )
      .execute();
  }
}
