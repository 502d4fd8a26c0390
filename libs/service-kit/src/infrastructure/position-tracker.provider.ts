import type { Provider } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import type { DatabaseHandle } from '@shop/db';
import { PositionTracker } from '@shop/projections';
import { DATABASE, NATS, POSITION_TRACKER } from '../tokens';

/** How far the projections writing to `schema` have got, followed from their checkpoint announcements. */
export function positionTrackerProvider(schema: string, subjectPrefix: string): Provider {
  return {
    provide: POSITION_TRACKER,
    inject: [NATS, DATABASE],
    useFactory: async (nc: NatsConnection, database: DatabaseHandle) => {
      const tracker = new PositionTracker(nc, database.db, schema, subjectPrefix);
      await tracker.start();
      return tracker;
    },
  };
}
