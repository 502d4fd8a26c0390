import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { SearchConfig } from '@shop/config';
import type { DatabaseHandle } from '@shop/db';
import type { EventStore } from '@shop/eventstore';
import type { Logger } from '@shop/logging';
import { ProjectionRunner } from '@shop/projections';
import { searchProjections } from '../payment/read-model/search-projections';
import { CONFIG, DATABASE, EVENT_STORE, LOGGER } from '@shop/service-kit';

/**
 * This service's own projections, kept up to date in-process in SEARCH_SCHEMA from the moment
 * the app is built; stopped on shutdown before the connections they use are closed.
 */
@Injectable()
export class SearchProjectionRunners implements OnApplicationShutdown {
  private readonly runners: ProjectionRunner[];

  constructor(
    @Inject(CONFIG) config: SearchConfig,
    @Inject(LOGGER) logger: Logger,
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(DATABASE) database: DatabaseHandle,
  ) {
    this.runners = searchProjections.map(
      (projection) =>
        new ProjectionRunner({
          store,
          db: database.db,
          databaseUrl: config.DATABASE_URL,
          schema: config.SEARCH_SCHEMA,
          projection,
          logger,
        }),
    );
    for (const runner of this.runners) runner.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.runners.map((runner) => runner.stop()));
  }
}
