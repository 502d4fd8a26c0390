import { dataKeyIdFor, RecordedEvent, SessionEvent, UserEvent } from '@shop/contracts';
import { CloseAccount, DomainError } from '@shop/domain';
import type { EventStore } from '@shop/eventstore';
import { DataKeyVault } from './data-key-vault';

/** What the read models say of a user, once they have applied the stream up to a position. */
export interface ErasureFacts {
  openOrder: boolean;
  sessionIds: string[];
}

/** The stream as an erasure reads it: its head, one aggregate, a range. */
export type ErasureStream = Pick<EventStore, 'lastStreamSequence' | 'load' | 'read'>;

export interface ErasureKeys {
  stream: ErasureStream;
  dataKeys: Pick<DataKeyVault, 'destroy'>;
}

export interface AccountErasure extends ErasureKeys {
  /**
   * Waits (bounded) until the read models of orders and chat sessions have applied stream
   * sequence `sequence`; false when the wait timed out.
   */
  readModelsReach(sequence: number): Promise<boolean>;
  readFacts(userId: string): Promise<ErasureFacts>;
  /** Runs the command on the user aggregate (refused with ORDER_OPEN when an order is open). */
  closeAccount(userId: string, command: CloseAccount): Promise<unknown>;
}

export const readModelBehind = () =>
  new DomainError(
    'unavailable',
    'READ_MODEL_BEHIND',
    'The account cannot be closed right now; try again in a moment',
  );

/**
 * Closes an account, then destroys the data keys of the user and of every chat session the
 * user has: from then on the stream holds nothing readable of them.
 *
 * The facts the closure is decided on come from read models that have caught up with the
 * stream's head, never from ones that may lag: an order or a session appended a moment before
 * counts. The closure records the sessions it found and the position they are complete to, so
 * the keys can be destroyed by anyone, any time later (completeErasure, and the reaction to the
 * closure after a crash here); a refusal (an open order) records nothing and destroys nothing.
 */
export async function eraseAccount(
  erasure: AccountErasure,
  userId: string,
  by: CloseAccount['by'],
): Promise<{ sessions: number }> {
  const through = await erasure.stream.lastStreamSequence();
  if (!(await erasure.readModelsReach(through))) throw readModelBehind();
  const facts = await erasure.readFacts(userId);
  await erasure.closeAccount(userId, {
    type: 'CloseAccount',
    by,
    hasOpenOrder: facts.openOrder,
    sessions: { ids: facts.sessionIds, through },
  });
  const done = await completeErasure(erasure, userId);
  return { sessions: done?.sessions ?? 0 };
}

/**
 * Destroys the keys of a closed account: the sessions its closure lists, the user's sessions
 * created between the list's position and the closure, and the user's own key. Null when the
 * account is not closed. Idempotent (a destroyed key stays destroyed), so it is safe to repeat
 * after any failure; sessions created after the closure are the session-key-erasure reaction's.
 */
export async function completeErasure(
  { stream, dataKeys }: ErasureKeys,
  userId: string,
): Promise<{ sessions: number } | null> {
  const { events } = await stream.load('user', userId);
  const closure = (events as RecordedEvent<UserEvent>[]).find((e) => e.type === 'AccountClosed');
  if (closure?.type !== 'AccountClosed') return null;
  const { sessionIds = [], sessionsThrough } = closure.data;
  const between =
    sessionsThrough === undefined
      ? []
      : await sessionsCreatedBetween(stream, userId, sessionsThrough, closure.sequence);
  const sessions = [...new Set([...sessionIds, ...between])];
  for (const sessionId of sessions) await dataKeys.destroy(dataKeyIdFor('session', sessionId));
  await dataKeys.destroy(dataKeyIdFor('user', userId));
  return { sessions: sessions.length };
}

/** Sessions of `userId` created strictly between two stream sequences. */
async function sessionsCreatedBetween(
  stream: ErasureStream,
  userId: string,
  after: number,
  before: number,
): Promise<string[]> {
  if (before - after <= 1) return [];
  const found: string[] = [];
  for await (const commit of stream.read(after + 1, before - 1)) {
    for (const event of commit as RecordedEvent<SessionEvent>[]) {
      if (event.aggregate !== 'session' || event.type !== 'SessionCreated') continue;
      if (event.data.userId === userId) found.push(event.aggregateId);
    }
  }
  return found;
}
