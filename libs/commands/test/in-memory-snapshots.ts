import { AggregateName } from '@shop/contracts';
import { SnapshotStore, StoredSnapshot } from '@shop/eventstore';

/** A snapshot bucket without I/O: one snapshot per aggregate instance, the last written. */
export class InMemorySnapshots implements SnapshotStore {
  readonly entries = new Map<string, StoredSnapshot>();
  writes = 0;
  /** Makes every write fail, as an unreachable bucket would. */
  failWrites = false;

  async read(aggregate: AggregateName, id: string): Promise<StoredSnapshot | null> {
    return this.entries.get(`${aggregate}.${id}`) ?? null;
  }

  async write(aggregate: AggregateName, id: string, snapshot: StoredSnapshot): Promise<void> {
    if (this.failWrites) throw new Error('the snapshot bucket is unreachable');
    this.writes++;
    // A copy through JSON, as the bucket stores it: nothing of the live state is shared.
    this.entries.set(`${aggregate}.${id}`, JSON.parse(JSON.stringify(snapshot)) as StoredSnapshot);
  }
}
