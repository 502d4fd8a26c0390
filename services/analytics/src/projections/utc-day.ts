import { RecordedEvent } from '@shop/contracts';

/** The UTC calendar day an event happened on (its occurredAt, never the time it is projected). */
export function utcDay(event: Pick<RecordedEvent, 'occurredAt'>): string {
  return new Date(event.occurredAt).toISOString().slice(0, 10);
}
