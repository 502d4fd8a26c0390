import { aggregateWildcard } from '@shop/contracts';
import { EventStore } from '@shop/eventstore';

const decoder = new TextDecoder();
const noMessageFound = 10037;

/**
 * The last stream sequence whose events occurred at or before `at` (0 when none did).
 *
 * A binary search over the commits' `occurredAt`: O(log n) single-message reads where a scan
 * would read the whole stream. `occurredAt` is stamped by the writer just before it publishes,
 * so along the stream it only goes back by the clock skew between concurrent writers
 * (milliseconds); within that window the boundary found is one of the possible ones.
 */
export async function sequenceAtTime(store: EventStore, at: Date): Promise<number> {
  const { state } = await store.jsm.streams.info(store.stream);
  let before = Math.max(0, state.first_seq - 1);
  let after = state.last_seq + 1;
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if ((await occurredAt(store, middle)) <= at.getTime()) before = middle;
    else after = middle;
  }
  return before;
}

/**
 * When the commit's events occurred. A deleted message counts with the next one, and a
 * message that does not parse (a poison commit) with the time the server stored it.
 */
async function occurredAt(store: EventStore, sequence: number): Promise<number> {
  // The first message at or after `sequence` (STREAM.MSG.GET takes next_by_subj; the typings lag).
  const query = { seq: sequence, next_by_subj: aggregateWildcard(store.subjectPrefix) };
  let message;
  try {
    message = await store.jsm.streams.getMessage(store.stream, query);
  } catch (error) {
    if ((error as { api_error?: { err_code?: number } }).api_error?.err_code === noMessageFound)
      return Infinity;
    throw error;
  }
  try {
    const commit = JSON.parse(decoder.decode(message.data)) as { events: { occurredAt: string }[] };
    const time = Date.parse(commit.events[0]!.occurredAt);
    if (!Number.isNaN(time)) return time;
  } catch {
    // Falls through to the storage time.
  }
  return message.time.getTime();
}
