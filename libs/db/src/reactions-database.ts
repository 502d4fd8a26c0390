import { Generated, Migration } from 'kysely';
import * as parkedReactions from './migrations/0201-parked-reactions';

/**
 * Operational bookkeeping of process managers: events they gave up on, retried later and
 * listed for an operator. Not a read model (a rebuild must not lose it), so it has its own schema.
 */
export interface ParkedReactionsTable {
  reaction: string;
  sequence: number;
  subject: string;
  error: string;
  attempts: number;
  parked_at: Generated<Date>;
}

export interface ReactionsDatabase {
  parked_reactions: ParkedReactionsTable;
}

export const reactionsMigrations: Record<string, Migration> = {
  '0201-parked-reactions': parkedReactions,
};
