import { decodeCommit, EventStore } from '@shop/eventstore';
import { BatchItem } from './batch-applier';

/** A message that cannot be decoded becomes an item to park, never a crash of the reader. */
export function decodeBatchItem(
  store: EventStore,
  subject: string,
  sequence: number,
  data: Uint8Array,
): BatchItem {
  try {
    return {
      sequence,
      subject,
      events: decodeCommit(store.catalogue, store.subjectPrefix, subject, sequence, data),
    };
  } catch (error) {
    return {
      sequence,
      subject,
      events: null,
      decodeError: error instanceof Error ? error.message : String(error),
    };
  }
}
