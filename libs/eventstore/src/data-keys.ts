/**
 * Where the event store gets the data keys personal fields are sealed under. Keys live
 * outside the stream, so destroying one erases its subject's fields from every stored copy.
 */
export interface DataKeys {
  /** The key to seal `keyId`'s fields with, created on first use. */
  keyForWriting(keyId: string): Promise<Buffer>;
  /**
   * The keys to open these ids with, in one round trip for the ones not cached; null for a
   * destroyed key. An id whose key was never stored is an error, not an erasure.
   */
  keysForReading(keyIds: ReadonlySet<string>): Promise<ReadonlyMap<string, Buffer | null>>;
}

export class DataKeyDestroyedError extends Error {
  constructor(readonly keyId: string) {
    super(`the data key of ${keyId} was destroyed: its subject is erased and takes no new personal data`);
    this.name = 'DataKeyDestroyedError';
  }
}

export class DataKeyMissingError extends Error {
  constructor(readonly keyId: string) {
    super(`no data key was ever stored for ${keyId}`);
    this.name = 'DataKeyMissingError';
  }
}
