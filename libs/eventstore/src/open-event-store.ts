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

/**
 * Connects (one connection per process) as `owner` (its NATS user, and the prefix of its
 * consumers' names), binds to the stream and checks it matches infra/: a process never creates
 * or changes it (the operator step does, provisionEventStream).
 */
export async function openEventStore(
  settings: EventStreamSettings,
  owner: string,
  dataKeys?: DataKeys,
): Promise<EventStore> {
  const nc = await connectNats(settings, owner);
  const store = await EventStore.create(nc, {
    stream: settings.EVENT_STREAM,
    subjectPrefix: settings.EVENT_SUBJECT_PREFIX,
    catalogue: eventCatalogue,
    replicas: settings.EVENT_STREAM_REPLICAS,
    dataKeys,
    owner,
  });
  await store.verifyStream();
  return store;
}
