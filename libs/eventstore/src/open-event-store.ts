import { eventCatalogue } from '@shop/contracts';
import { DataKeys } from './data-keys';
import { EventStore } from './event-store';
import { connectNats, NatsSettings } from './nats-connection';

/** The shared variables that say where the event stream is (see libs/config's sharedEnv). */
export interface EventStreamSettings extends NatsSettings {
  EVENT_STREAM: string;
  EVENT_SUBJECT_PREFIX: string;
  EVENT_STREAM_REPLICAS: number;
}

/** Connects (one connection per process), opens the stream and makes sure it matches infra/. */
export async function openEventStore(
  settings: EventStreamSettings,
  clientName: string,
  dataKeys?: DataKeys,
): Promise<EventStore> {
  const nc = await connectNats(settings, clientName);
  const store = await EventStore.create(nc, {
    stream: settings.EVENT_STREAM,
    subjectPrefix: settings.EVENT_SUBJECT_PREFIX,
    catalogue: eventCatalogue,
    replicas: settings.EVENT_STREAM_REPLICAS,
    dataKeys,
  });
  await store.ensureStream();
  return store;
}
