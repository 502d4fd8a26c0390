import { decodeCommit, decodeTrustedCommit, EventStore } from '@shop/eventstore';
import { BatchItem } from './batch-applier';

/** A message that cannot be decoded becomes an item to park, never a crash of the reader. */
export function decodeBatchItem(
  store: EventStore,
  subject: string,
  sequence: number,
  data: Uint8Array,
): BatchItem {
  return toBatchItem(subject, sequence, () =>
    decodeCommit(store.catalogue, store.subjectPrefix, subject, sequence, data),
  );
}

/**
 * The same for a replay of the stream (rebuilds, catch-ups into a fresh schema): events the
 * append validated are not validated again, only older versions are upcast (`decodeTrustedCommit`).
 */
export function decodeReplayedBatchItem(
  store: EventStore,
  subject: string,
  sequence: number,
  data: Uint8Array,
): BatchItem {
  return toBatchItem(subject, sequence, () =>
    decodeTrustedCommit(store.catalogue, store.subjectPrefix, subject, sequence, data),
  );
}

function toBatchItem(subject: string, sequence: number, decode: () => BatchItem['events']): BatchItem {
  try {
    return { sequence, subject, events: decode() };
  } catch (error) {
    return {
      sequence,
      subject,
      events: null,
      decodeError: error instanceof Error ? error.message : String(error),
    };
  }
}
