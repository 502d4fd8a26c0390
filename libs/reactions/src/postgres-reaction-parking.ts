import { Kysely, sql } from 'kysely';
import { ReactionsDatabase } from '@shop/db';
import { ParkedReaction, ReactionParking } from './reaction-parking';

/** Parked reaction events in Postgres, in a schema no rebuild drops. */
export class PostgresReactionParking implements ReactionParking {
  constructor(private readonly db: Kysely<ReactionsDatabase>) {}

  async park(entry: ParkedReaction): Promise<void> {
    await this.db
      .insertInto('parked_reactions')
      .values({ ...entry, attempts: 1 })
      .onConflict((oc) =>
        oc
          .columns(['reaction', 'sequence'])
          .doUpdateSet({ error: entry.error, attempts: sql`parked_reactions.attempts + 1` }),
      )
      .execute();
  }

  async parked(reaction: string): Promise<ParkedReaction[]> {
    const rows = await this.db
      .selectFrom('parked_reactions')
      .select(['reaction', 'sequence', 'subject', 'error'])
      .where('reaction', '=', reaction)
      .orderBy('sequence')
      .execute();
    return rows.map((r) => ({ ...r, sequence: Number(r.sequence) }));
  }

  async holds(reaction: string, subject: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('parked_reactions')
      .select('sequence')
      .where('reaction', '=', reaction)
      .where('subject', '=', subject)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** How many events each reaction has parked (reactions with none are absent). */
  async counts(): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('parked_reactions')
      .select(['reaction', (eb) => eb.fn.countAll<string>().as('count')])
      .groupBy('reaction')
      .execute();
    return new Map(rows.map((r) => [r.reaction, Number(r.count)]));
  }

  /** Every parked event of every reaction, for an operator. */
  async all(): Promise<(ParkedReaction & { attempts: number })[]> {
    const rows = await this.db.selectFrom('parked_reactions').selectAll().orderBy('parked_at').execute();
    return rows.map((r) => ({ ...r, sequence: Number(r.sequence) }));
  }

  async release(reaction: string, sequence: number): Promise<void> {
    await this.db
      .deleteFrom('parked_reactions')
      .where('reaction', '=', reaction)
      .where('sequence', '=', sequence)
      .execute();
  }
}
