import type { InjectionToken, Provider } from '@nestjs/common';
import { DataKeys, EventStore, EventStreamSettings, openEventStore } from '@shop/eventstore';
import { EVENT_STORE, NATS } from '../tokens';

/**
 * The process's event store on its one NATS connection; with `dataKeys`, the vault that
 * encrypts personal event fields (a service that writes them).
 */
export function eventStoreProvider(
  settings: EventStreamSettings,
  clientName: string,
  dataKeys?: InjectionToken,
): Provider {
  return {
    provide: EVENT_STORE,
    inject: dataKeys ? [dataKeys] : [],
    useFactory: (keys?: DataKeys) => openEventStore(settings, clientName, keys),
  };
}

/** The event store's NATS connection, for the services' own subjects and health checks. */
export const natsProvider: Provider = {
  provide: NATS,
  inject: [EVENT_STORE],
  useFactory: (store: EventStore) => store.nc,
};
