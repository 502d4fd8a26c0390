import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, projectorEnv } from '@shop/config';
import { OpsServer, parsePrometheusText, sampleValue, startOpsServer } from '@shop/metrics';
import { createLogger } from '@shop/logging';
import { dropSchema, openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { RunningProjector, startProjector } from '../src/projector';

const env = testEnvironment('projprobe');
let events: TestEventStore;
let projector: RunningProjector;
let ops: OpsServer;

beforeAll(async () => {
  events = await openTestEventStore(env);
  const config = loadConfig(projectorEnv, { ...process.env, ...env.env });
  projector = await startProjector(config, createLogger('test', 'silent'));
  ops = await startOpsServer({
    metrics: projector.metrics,
    checks: projector.checks,
    host: '127.0.0.1',
    port: 0,
  });
});
afterAll(async () => {
  await ops?.close();
  await projector?.stop();
  await events?.close();
  await dropSchema(env);
});

async function register(): Promise<number> {
  const userId = randomUUID();
  const result = await events.store.append(
    'user',
    userId,
    [{ type: 'UserRegistered', data: { providerSubject: `dev|${userId}`, email: null } }],
    {
      commandId: randomUUID(),
      correlationId: randomUUID(),
      actor: { kind: 'system', id: null },
      expectedSequence: 0,
    },
  );
  return result.sequence;
}

async function scrape() {
  return parsePrometheusText(await (await fetch(`${ops.url}/metrics`)).text());
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const value = await read();
    if (done(value) || i > 200) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('projector probes', () => {
  it('reports checkpoints, applied events and zero lag once caught up', async () => {
    await register();
    const last = await register();
    const samples = await until(
      scrape,
      (s) => sampleValue(s, 'projection_checkpoint', { projection: 'users' }) === last,
    );
    expect(sampleValue(samples, 'projection_checkpoint', { projection: 'users' })).toBe(last);
    expect(sampleValue(samples, 'stream_last_sequence')).toBe(last);
    expect(sampleValue(samples, 'projection_lag_events', { projection: 'users' })).toBe(0);
    expect(sampleValue(samples, 'projection_lag_seconds', { projection: 'users' })).toBe(0);
    expect(sampleValue(samples, 'projection_events_applied_total', { projection: 'users' })).toBe(2);
    expect(sampleValue(samples, 'projection_parked_subjects', { projection: 'users' })).toBe(0);
    expect(
      samples.some(
        (s) =>
          s.name === 'jetstream_consumer_redelivered' && s.labels.consumer === 'projector_projection_users',
      ),
    ).toBe(true);
  });

  it('reports lag in events and seconds while a projection is behind', async () => {
    const users = projector.runners.find((r) => r.name === 'users')!;
    await users.stop();
    const at = await register();
    await new Promise((r) => setTimeout(r, 1100));
    const behind = await scrape();
    expect(sampleValue(behind, 'projection_lag_events', { projection: 'users' })).toBe(1);
    expect(sampleValue(behind, 'projection_lag_seconds', { projection: 'users' })).toBeGreaterThanOrEqual(1);
    users.start();
    const caughtUp = await until(
      scrape,
      (s) => sampleValue(s, 'projection_checkpoint', { projection: 'users' }) === at,
    );
    expect(sampleValue(caughtUp, 'projection_lag_events', { projection: 'users' })).toBe(0);
  });

  it('serves /ready with its dependencies and /health', async () => {
    const ready = await fetch(`${ops.url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      ready: true,
      checks: { nats: { ok: true }, postgres: { ok: true }, redis: { ok: true } },
    });
    expect(await (await fetch(`${ops.url}/health`)).json()).toEqual({ ok: true });
  });
});
