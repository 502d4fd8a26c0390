import { RecordedEvent } from '@shop/contracts';

type Step = { events: readonly RecordedEvent[] } | { closedUser: string };

/**
 * A batch cut around account closures, in stream order: the events before a closure, then the
 * closure's erasure of the user's rows, then the rest. A rebuild cuts the stream into other
 * batches than the live projector did, so only this order makes both end with the same rows.
 */
function* aroundClosures(events: readonly RecordedEvent[]): Generator<Step> {
  let from = 0;
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    if (event.aggregate !== 'user' || event.type !== 'AccountClosed') continue;
    if (i > from) yield { events: events.slice(from, i) };
    yield { closedUser: event.aggregateId };
    from = i + 1;
  }
  if (from < events.length) yield { events: from === 0 ? events : events.slice(from) };
}

/** Applies a batch around its account closures (see aroundClosures). */
export async function applyAroundClosures(
  events: readonly RecordedEvent[],
  applyEvents: (events: readonly RecordedEvent[]) => Promise<void>,
  eraseUser: (userId: string) => Promise<void>,
): Promise<void> {
  for (const step of aroundClosures(events)) {
    if ('closedUser' in step) await eraseUser(step.closedUser);
    else await applyEvents(step.events);
  }
}

/** The same in memory, for a bulk fold. */
export function foldAroundClosures(
  events: readonly RecordedEvent[],
  foldEvents: (events: readonly RecordedEvent[]) => void,
  eraseUser: (userId: string) => void,
): void {
  for (const step of aroundClosures(events)) {
    if ('closedUser' in step) eraseUser(step.closedUser);
    else foldEvents(step.events);
  }
}
