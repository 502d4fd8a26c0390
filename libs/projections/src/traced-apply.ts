import type { JsMsg } from 'nats';
import { messagingAttributes, tracedBatch } from '@shop/tracing';
import type { BatchOutcome } from './batch-applier';

/**
 * A projection's apply of a batch as one span linked to the request behind each message, with
 * every subject it parked as an event that gives the reason.
 */
export function tracedApply(
  projection: string,
  destination: string,
  messages: readonly JsMsg[],
  apply: () => Promise<BatchOutcome>,
): Promise<BatchOutcome> {
  return tracedBatch(projection, destination, messages, async (span) => {
    const outcome = await apply();
    for (const parked of outcome.parked) {
      span.addEvent('parked', {
        [messagingAttributes.destination]: parked.subject,
        [messagingAttributes.streamSequence]: parked.sequence,
        reason: parked.error,
      });
    }
    return outcome;
  });
}
