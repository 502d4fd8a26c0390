import type { Provider } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { createDatabase } from '@shop/db';
import { DATABASE } from '../tokens';

export interface DatabaseOptions {
  url: string;
  /** Postgres lists the process's connections under this name. */
  applicationName: string;
  /** The most connections the process holds. */
  max: number;
  /** Runs before anything uses the pool: the service's own schema migrations. */
  prepare?: (db: Kysely<unknown>) => Promise<unknown>;
}

/** The process's one Postgres pool. */
export function databaseProvider(options: DatabaseOptions): Provider {
  return {
    provide: DATABASE,
    useFactory: async () => {
      const database = createDatabase(options.url, {
        applicationName: options.applicationName,
        max: options.max,
      });
      await options.prepare?.(database.db as Kysely<unknown>);
      return database;
    },
  };
}
