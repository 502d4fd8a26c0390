import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dropSchema,
  openTestEventStore,
  startServiceProcess,
  testEnvironment,
  type TestEventStore,
} from '@shop/testing';

const env = testEnvironment('searchmain');

let store: TestEventStore;

// The operator step makes the stream and its bucket: the service only binds to them.
beforeAll(async () => {
  store = await openTestEventStore(env);
});
afterAll(async () => {
  await store.close();
  await dropSchema(env);
});

describe('services/search/src/main.ts', () => {
  it('runs alone, logs where it listens, answers, and exits cleanly on SIGTERM', async () => {
    const service = startServiceProcess('services/search/src/main.ts', {
      ...env.env,
      LOG_LEVEL: 'info',
      PORT: '0',
      HOST: '127.0.0.1',
      SEARCH_SCHEMA: env.schema,
    });
    await service.waitForOutput(/search listening/, 30_000);
    const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(service.output())?.[1];
    expect(url).toBeDefined();
    const docs = await fetch(`${url}/api-docs-json`);
    expect(docs.status).toBe(200);
    const health = await fetch(`${url}/api/search/realtime/health`);
    expect(health.status).toBe(503);
    expect(await service.stop()).toBe(0);
    expect(service.output()).toMatch(/draining search service/);
  }, 60_000);

  it('refuses to start on a stream the operator has not made, naming it, and exits 1', async () => {
    const service = startServiceProcess('services/search/src/main.ts', {
      ...env.env,
      EVENT_STREAM: `${env.stream}_MISSING`,
      PORT: '0',
      HOST: '127.0.0.1',
      SEARCH_SCHEMA: env.schema,
    });
    await service.waitForOutput(
      /failed to start: StreamDefinitionError: stream \S+_MISSING does not exist/,
      30_000,
    );
    const code = await new Promise((resolve) => {
      if (service.child.exitCode !== null) resolve(service.child.exitCode);
      else service.child.once('exit', resolve);
    });
    expect(code).toBe(1);
  }, 60_000);
});
