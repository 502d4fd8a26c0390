import { randomUUID } from 'node:crypto';
import { Events } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemActor } from '@shop/contracts';
import {
  openTestEventStore,
  startPrivateNats,
  testEnvironment,
  type PrivateNats,
  type TestEventStore,
} from '@shop/testing';
import { EventStoreUnavailableError } from '../src/errors';

const env = testEnvironment('natsdown');
let nats: PrivateNats;
let t: TestEventStore;

const registered = {
  type: 'UserRegistered',
  data: { providerSubject: 'sub-down', email: 'down@example.com' },
};
const meta = () => ({ commandId: randomUUID(), correlationId: randomUUID(), actor: systemActor });

beforeAll(async () => {
  nats = await startPrivateNats();
  t = await openTestEventStore({ ...env, natsUrl: nats.url });
});
afterAll(async () => {
  await nats?.start();
  await t?.close();
  await nats?.close();
});

describe('EventStore while NATS is down', () => {
  it('refuses an append at once once the connection is known lost, rather than waiting out the publish', async () => {
    await t.store.append('user', randomUUID(), [registered], { ...meta(), expectedSequence: 0 });
    const statuses = t.nc.status();
    await nats.stop('SIGKILL');
    for await (const status of statuses) if (status.type === Events.Disconnect) break;
    // The store's own watcher sees the same status; let it run.
    await new Promise((resolve) => setImmediate(resolve));

    const error = await t.store
      .append('user', randomUUID(), [registered], { ...meta(), expectedSequence: 0 })
      .catch((e: unknown) => e);

    // Refused by the store's own connection check: a publish that waited out its deadline would
    // carry the client's timeout as its cause instead.
    expect(error).toBeInstanceOf(EventStoreUnavailableError);
    expect((error as Error).cause).toMatchObject({ message: 'not connected to NATS' });
  });
});
