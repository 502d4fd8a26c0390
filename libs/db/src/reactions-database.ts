import { Generated, Migration } from 'kysely';
import * as parkedReactions from './migrations/0201-parked-reactions';
import * as reactionPositions from './migrations/0202-reaction-positions';

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

/**
 * How far each reaction partition has handled its consumer's messages, by its own count: the
 * record its consumer's position is checked against when a runner binds to it.
 */
export interface ReactionPositionsTable {
  reaction: string;
  /** `<index>of<count>`. */
  partition: string;
  sequence: number;
  recorded_at: Generated<Date>;
}

export interface ReactionsDatabase {
  parked_reactions: ParkedReactionsTable;
  reaction_positions: ReactionPositionsTable;
}

export const reactionsMigrations: Record<string, Migration> = {
  '0201-parked-reactions': parkedReactions,
  '0202-reaction-positions': reactionPositions,
};
