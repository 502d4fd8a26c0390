import { ParkedReaction, PostgresReactionParking } from '@shop/reactions';

/** The Postgres parking, noting every event whose parking failed (an outage test's witness). */
export class WatchedParking extends PostgresReactionParking {
  readonly failed = new Set<number>();

  override async park(entry: ParkedReaction): Promise<void> {
    try {
      await super.park(entry);
    } catch (error) {
      this.failed.add(entry.sequence);
      throw error;
    }
  }
}
