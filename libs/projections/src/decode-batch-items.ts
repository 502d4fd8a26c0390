import { DecodeMode, EventStore, RawCommit } from '@shop/eventstore';
import { BatchItem } from './batch-applier';

/**
 * Decodes a batch with one load of the data keys it needs. A message that cannot be decoded
 * becomes an item to park, never a crash of the reader.
 */
export async function decodeBatchItems(
  store: EventStore,
  raws: readonly RawCommit[],
  mode: DecodeMode = 'validated',
): Promise<BatchItem[]> {
  const decoded = await store.decodeAll(raws, mode);
  return raws.map(({ sequence, subject }, i) => {
    const events = decoded[i]!;
    return events instanceof Error
      ? { sequence, subject, events: null, decodeError: events.message }
      : { sequence, subject, events };
  });
}
