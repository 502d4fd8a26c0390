import { RecordedEvent } from '@shop/contracts';

/**
 * Applies a batch in stream order around account closures: the events before a closure, then
 * the closure's erasure of the user's rows, then the rest. A rebuild cuts the stream into other
 * batches than the live projector did, so only this order makes both end with the same rows.
 */
export async function applyAroundClosures(
  events: readonly RecordedEvent[],
  applyEvents: (events: readonly RecordedEvent[]) => Promise<void>,
  eraseUser: (userId: string) => Promise<void>,
): Promise<void> {
  let from = 0;
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    if (event.aggregate !== 'user' || event.type !== 'AccountClosed') continue;
    if (i > from) await applyEvents(events.slice(from, i));
    await eraseUser(event.aggregateId);
    from = i + 1;
  }
  if (from < events.length) await applyEvents(from === 0 ? events : events.slice(from));
}
